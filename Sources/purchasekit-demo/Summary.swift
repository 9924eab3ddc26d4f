import Foundation
import PurchaseKit

/// The end-of-story view: entitlements, consumable balances, subscription
/// status and open orders, as text or as JSON entries.
struct Summary {
    let world: DemoWorld
    var terminal: Terminal { world.terminal }

    /// The users to show: the one asked for, or every user of the story.
    func users(_ only: String?) async -> [String] {
        if let only { return [only] }
        let known = await world.backend.state.users
        return known.isEmpty ? ["alice"] : known
    }

    func entry(for user: String) async throws -> JSONOutput.UserEntry {
        let engine = world.engine
        let entitlements = try await engine.entitlements(user: user).map {
            JSONOutput.EntitlementEntry(productID: $0.productID, productType: $0.productType.rawValue, orderID: $0.orderID,
                                        transactionID: $0.transactionID, expirationDate: $0.expirationDate)
        }
        return JSONOutput.UserEntry(
            user: user, entitlements: entitlements, consumables: try await engine.consumableBalance(user: user),
            subscriptions: try await engine.subscriptionStatus(user: user).mapValues(\.rawValue))
    }

    func printUser(_ entry: JSONOutput.UserEntry) {
        terminal.line(terminal.paint("\(entry.user)", .bold) + " at \(world.clock.now.demoText) UTC")
        if entry.entitlements.isEmpty {
            terminal.line("  entitlements: none")
        }
        for entitlement in entry.entitlements {
            let until = entitlement.expirationDate.map { ", until \($0.demoText)" } ?? ""
            terminal.line("  owns " + terminal.paint(world.printer.name(of: entitlement.productID), .green)
                + terminal.paint(" (\(entitlement.productType), \(entitlement.orderID), transaction \(entitlement.transactionID)\(until))", .dim))
        }
        for (productID, units) in entry.consumables.sorted(by: { $0.key < $1.key }) {
            terminal.line("  delivered \(units) × \(world.printer.name(of: productID))")
        }
        for (group, status) in entry.subscriptions.sorted(by: { $0.key < $1.key }) {
            terminal.line("  subscription group \(group): \(status)")
        }
    }

    func printOpenOrders(_ orders: [Order]) {
        if orders.isEmpty {
            terminal.line("  open orders: none — every paid order was delivered and finished")
        }
        for order in orders {
            terminal.line("  open " + terminal.paint(order.id, .cyan) + " \(world.printer.name(of: order.productID)) for "
                + (order.userID.isEmpty ? "(no user)" : order.userID) + ": " + world.printer.status(order.status)
                + (order.hint.map { terminal.paint(" (\($0))", .dim) } ?? ""))
        }
    }

    /// Every user's entitlements and balances, then the open orders.
    func printAll() async throws {
        for user in await users(nil) {
            printUser(try await entry(for: user))
        }
        printOpenOrders(try await world.orderStore.loadOpenOrders().orders.sorted(by: Order.creationOrder))
    }
}
