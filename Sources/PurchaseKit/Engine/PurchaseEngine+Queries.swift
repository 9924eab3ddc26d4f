import Foundation

extension PurchaseEngine {
    /// The open orders of a user (or of everyone): waiting for the store,
    /// owed a delivery, needing attention, or delivered but not finished.
    public func openOrders(user userID: String? = nil) -> [Order] {
        orders.values
            .filter { userID == nil || $0.userID == userID }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// What the user owns now: non-consumables, and subscriptions whose period
    /// has not ended (or that the store keeps in a grace period). Nothing
    /// revoked, pending, rejected or undelivered; consumables are in
    /// ``consumableBalance(user:)``.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed``; `productRequestFailed`
    ///   when a product's type must be loaded from the store and cannot be.
    public func entitlements(user userID: String) async throws -> [Entitlement] {
        let delivered = try await deliveredOrders(of: userID)
        let now = clock.now
        var result: [String: Entitlement] = [:]
        for order in delivered {
            guard let transaction = order.transaction else { continue }
            let product = try await loadProduct(order.productID)
            switch product.type {
            case .consumable:
                continue
            case .nonConsumable:
                break
            case .autoRenewable, .nonRenewable:
                if let expiration = transaction.expirationDate, expiration <= now {
                    guard case .inGracePeriod(let until)? = await queue.renewalState(forOriginalTransactionID: transaction.originalID),
                          until > now, product.type == .autoRenewable else { continue }
                }
            }
            let entitlement = Entitlement(productID: product.id, productType: product.type, orderID: order.id,
                                          transactionID: transaction.id, expirationDate: transaction.expirationDate)
            if let known = result[product.id], (known.expirationDate ?? .distantFuture) >= (entitlement.expirationDate ?? .distantFuture) {
                continue
            }
            result[product.id] = entitlement
        }
        return result.values.sorted { $0.productID < $1.productID }
    }

    /// Delivered units of each consumable product for the user; revoked
    /// purchases are not counted.
    public func consumableBalance(user userID: String) async throws -> [String: Int] {
        var balance: [String: Int] = [:]
        for order in try await deliveredOrders(of: userID) where try await loadProduct(order.productID).type == .consumable {
            balance[order.productID, default: 0] += order.quantity
        }
        return balance
    }

    /// Where each of the user's subscription groups stands, by group id.
    public func subscriptionStatus(user userID: String) async throws -> [String: SubscriptionStatus] {
        let all = try await allOrders(of: userID).filter { $0.transaction != nil && ($0.status == .delivered || $0.status == .completed || $0.status == .revoked) }
        var latest: [String: Order] = [:]
        for order in all {
            let product = try await loadProduct(order.productID)
            guard product.type == .autoRenewable, let group = product.subscription?.groupID,
                  let transaction = order.transaction else { continue }
            if let known = latest[group]?.transaction, known.purchaseDate > transaction.purchaseDate { continue }
            latest[group] = order
        }
        let now = clock.now
        var status: [String: SubscriptionStatus] = [:]
        for (group, order) in latest {
            guard let transaction = order.transaction else { continue }
            if order.status == .revoked || transaction.isRevoked {
                status[group] = .revoked
            } else if let expiration = transaction.expirationDate, expiration <= now {
                switch await queue.renewalState(forOriginalTransactionID: transaction.originalID) {
                case .inGracePeriod(let until)? where until > now: status[group] = .inGracePeriod
                case .inBillingRetry?, .inGracePeriod?: status[group] = .inBillingRetry
                default: status[group] = .expired
                }
            } else {
                status[group] = .subscribed
            }
        }
        return status
    }

    private func allOrders(of userID: String) async throws -> [Order] {
        do {
            return try await store.orders(forUser: userID)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The orders of user '\(userID)' could not be read.",
                                        advice: "Try again; check the order store's location and permissions.")
        }
    }

    private func deliveredOrders(of userID: String) async throws -> [Order] {
        try await allOrders(of: userID).filter { ($0.status == .delivered || $0.status == .completed) && !($0.transaction?.isRevoked ?? false) }
    }
}
