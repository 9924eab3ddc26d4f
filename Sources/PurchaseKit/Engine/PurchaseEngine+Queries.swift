import Foundation

extension PurchaseEngine {
    /// The open orders of a user (or of everyone): waiting for the store,
    /// owed a delivery, needing attention, or delivered but not finished.
    public func openOrders(user userID: String? = nil) -> [Order] {
        orders.values
            .filter { userID == nil || $0.userID == userID }
            .sorted(by: Order.creationOrder)
    }

    /// What the user owns now: non-consumables, subscriptions whose period
    /// has not ended (or that the store keeps in a grace period), one per
    /// subscription group: the group's latest purchase (after an upgrade, the
    /// new product only; after a downgrade, the old one until its period ends,
    /// then the new one, whose transaction the store sends then; on a store
    /// account several app users share, another user's change of the
    /// subscription ends this user's plan likewise), and
    /// non-renewing subscriptions that have not run out (see
    /// ``NonRenewingSubscription``). Nothing
    /// revoked, pending, rejected or undelivered; consumables are in
    /// ``consumableBalance(user:)``.
    ///
    /// Answered from the stored orders, whatever the store sells today: a
    /// product removed from sale (or never sold by this store) is still owned.
    /// Its type comes from the order, else the store's catalog, else the stored
    /// transaction.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders cannot be read.
    public func entitlements(user userID: String) async throws -> [Entitlement] {
        let all = try await allOrders(of: userID)
        let delivered = Self.delivered(all)
        let facts = await productFacts(for: delivered)
        let now = clock.now
        let nonRenewing = nonRenewingSubscriptions(of: userID, delivered: delivered, facts: facts)
        let superseded = try await supersededSubscriptionOrders(of: userID, in: all)
        var result: [String: Entitlement] = [:]
        for order in delivered where !superseded.contains(order.id) {
            guard let transaction = order.transaction, let type = facts[order.id]?.type else { continue }
            switch type {
            case .consumable:
                continue
            case .nonConsumable:
                break
            case .nonRenewable:
                guard nonRenewing[order.productID]?.isActive ?? false else { continue }
            case .autoRenewable:
                if let expiration = transaction.expirationDate, expiration <= now {
                    guard case .inGracePeriod(let until)? = await learnRenewalState(of: transaction.originalID, user: userID),
                          until > now else { continue }
                }
            }
            let expiration = type == .nonRenewable ? nonRenewing[order.productID]?.expirationDate : transaction.expirationDate
            let entitlement = Entitlement(productID: order.productID, productType: type, orderID: order.id,
                                          transactionID: transaction.id, expirationDate: expiration)
            if let known = result[order.productID], (known.expirationDate ?? .distantFuture) >= (entitlement.expirationDate ?? .distantFuture) {
                continue
            }
            result[order.productID] = entitlement
        }
        return result.values.sorted { $0.productID < $1.productID }
    }

    /// Units left in each consumable balance of the user, by product id (or by
    /// the balance key ``Configuration/Policies/consumableCredits`` gives a product):
    /// delivered units (revoked purchases not counted, each unit counted as the
    /// credits say) minus the units spent with ``spend(_:of:user:spendID:)``,
    /// never below zero. Answered from the stored orders and spends, whatever
    /// the store sells today. Never traps: a stored quantity no purchase can
    /// have is left out (and logged), and a sum saturates at `Int.max`.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders or spends cannot be read.
    public func consumableBalance(user userID: String) async throws -> [String: Int] {
        let delivered = try await deliveredOrders(of: userID)
        let facts = await productFacts(for: delivered)
        var tally = ConsumableTally()
        for order in delivered where facts[order.id]?.type == .consumable {
            tally.add(order)
        }
        for skipped in tally.skipped {
            log(.error, "A delivered order with an impossible quantity was left out of the balance",
                ["orderID": skipped.orderID, "quantity": "\(skipped.quantity)", "user": userID])
        }
        for productID in tally.saturated.sorted() {
            log(.error, "A consumable balance reached the largest number and was capped", ["productID": productID, "user": userID])
        }
        let balances = ConsumableCredit.balances(tally.balance, credits: configuration.policies.consumableCredits)
        return CustomerInfoBuilder.subtracting(try await storedSpends(of: userID), from: balances)
    }

    /// The non-renewing subscriptions among `delivered`, with their expiry (see ``NonRenewingSubscription``).
    func nonRenewingSubscriptions(of userID: String, delivered: [Order], facts: [String: ProductFacts]) -> [String: NonRenewingSubscription] {
        let durations = configuration.policies.nonRenewingDurations
        let catalog = products
        return CustomerInfoBuilder(userID: userID, orders: delivered, facts: facts, spends: [], renewals: [:],
                                   nonRenewingDuration: { durations[$0] ?? catalog[$0]?.subscription?.period },
                                   now: clock.now).nonRenewingSubscriptions()
    }

    /// Where each of the user's subscription groups stands, by group id.
    /// Answered from the stored orders, whatever the store sells today. A
    /// plan that another user of a shared store account changed is
    /// `expired` from the change on (`revoked` if it was refunded): the
    /// subscription renews for that user.
    ///
    /// - Throws: ``PurchaseKitError/Code/persistenceReadFailed`` when the orders cannot be read.
    public func subscriptionStatus(user userID: String) async throws -> [String: SubscriptionStatus] {
        let all = try await allOrders(of: userID).filter { $0.transaction != nil && $0.status.isPaidForSupersession }
        let changes = try await paidChangesByOtherUsers(of: userID, in: all)
        let facts = await productFacts(for: all)
        let now = clock.now
        let latest = SupersededSubscriptions.latestPerGroup(all, facts: facts, endedBy: changes, now: now)
        var status: [String: SubscriptionStatus] = [:]
        for (group, order) in latest {
            guard let transaction = order.transaction else { continue }
            if order.status == .revoked || transaction.isRevoked {
                status[group] = .revoked
            } else if SupersededSubscriptions.end(of: transaction, by: changes, now: now) != nil {
                // Another user of the store account changed the subscription: the user's plan ended then.
                status[group] = .expired
            } else if let expiration = transaction.expirationDate, expiration <= now {
                switch await learnRenewalState(of: transaction.originalID, user: userID) {
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

    func allOrders(of userID: String) async throws -> [Order] {
        do {
            return try await store.orders(forUser: userID)
        } catch {
            throw PurchaseKitError.wrap(error, as: .persistenceReadFailed, "The orders of user '\(userID)' could not be read.",
                                        advice: "Try again; check the order store's location and permissions.")
        }
    }

    private func deliveredOrders(of userID: String) async throws -> [Order] {
        Self.delivered(try await allOrders(of: userID))
    }

    /// The delivered (or completed) orders among `orders` whose transaction the store did not take back.
    private static func delivered(_ orders: [Order]) -> [Order] {
        orders.filter { ($0.status == .delivered || $0.status == .completed) && !($0.transaction?.isRevoked ?? false) }
    }

    /// The product facts of `orders`, by order id, without ever throwing: what
    /// the orders recorded, else the store's catalog (one request for every
    /// product the engine has not loaded, unless `askingStore` is false: then
    /// only the products loaded already), else what the stored transactions show.
    func productFacts(for orders: [Order], askingStore: Bool = true) async -> [String: ProductFacts] {
        let missing = Set(orders.filter { $0.productType == nil && products[$0.productID] == nil }.map(\.productID))
        if askingStore, !missing.isEmpty {
            do {
                let response = try await withStore { try await $0.products(for: missing) }
                for product in response.products { products[product.id] = product }
            } catch {
                log(.warning, "The store's catalog could not be loaded; answering from the stored orders",
                    ["products": "\(missing.count)", "error": "\(type(of: error))"])
            }
        }
        let facts = ProductFacts.resolve(orders, catalog: products)
        let guessed = Set(orders.filter { facts[$0.id]?.source == .inferred }.map(\.productID))
        if !guessed.isEmpty {
            log(.warning, "Products the store does not describe were answered from the stored transactions",
                ["productIDs": guessed.sorted().joined(separator: ",")])
        }
        return facts
    }
}

extension PurchaseEngine {
    /// The user's subscription orders that a later purchase in the same group
    /// replaced, judged over every paid order of the user, refunded ones
    /// included: an upgrade that is refunded later does not bring back the
    /// plan it replaced, whose rest the store refunded at the upgrade. Call it
    /// after `productFacts(for:)` has loaded the catalog the answer needs.
    /// Another user's change of one of the user's subscriptions (a store
    /// account shared) replaces it too: see `paidChangesByOtherUsers(of:in:)`.
    /// `orders`: every order of the user, as read once by the caller.
    func supersededSubscriptionOrders(of userID: String, in orders: [Order]) async throws -> Set<String> {
        let paid = orders.filter { $0.transaction != nil && $0.status.isPaidForSupersession }
        let changes = try await paidChangesByOtherUsers(of: userID, in: paid)
        let now = clock.now
        // The catalog as already loaded: the caller asked the store for what it
        // lacked, and an order nobody describes is judged by what it shows.
        return SupersededSubscriptions.orderIDs(in: paid, facts: ProductFacts.resolve(paid, catalog: products),
                                                endedBy: changes, now: now)
    }
}
