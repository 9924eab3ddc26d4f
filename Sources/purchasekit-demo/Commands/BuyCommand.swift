import Foundation
import PurchaseKit
import PurchaseKitSimulator

extension Commands {
    static let scenarios = ["success", "cancel", "fail", "ask-to-buy", "lose-token", "verifier-down"]

    static let buy = Command(
        name: "buy",
        synopsis: "buy PRODUCT_ID [--user U] [--config FILE] [--scenario NAME] [--crash-after STATE] [--json]",
        summary: "Buy a product on the simulated store.",
        details: """
        Starts the engine (recovering anything left over), buys PRODUCT_ID for the
        user, and prints the order's timeline and result.

          --user U          the app's user (default alice)
          --config FILE     the .storekit file of a new story (default: the bundled sample)
          --scenario NAME   what the store and the server do:
                              success        the user pays (the default, unless the
                                             configuration enables Ask to Buy)
                              cancel         the user cancels the payment sheet
                              fail           the store refuses the payment
                              ask-to-buy     a parent must approve (see `approve`)
                              lose-token     the store loses the order token; the
                                             engine matches the order by product and time
                              verifier-down  the server answers 503; delivery is
                                             retried later (see `resume`)
          --crash-after STATE
                            end the process abruptly (exit status 3) right after the
                            order is durably saved in STATE (created, purchasing,
                            purchased, delivered, completed...); then run `resume`
          --json            print only a JSON object: result (success, userCancelled,
                            pending), pendingReason, and the order (id, productID,
                            userID, status, transactionID, source, quantity)
        """,
        spec: .init(valueOptions: ["user", "config", "scenario", "crash-after"], flags: ["json"])
    ) { arguments, context in
        let productID = try arguments.positionals(["PRODUCT_ID"])[0]
        let user = arguments.value("user") ?? "alice"
        let scenario = arguments.value("scenario") == nil ? nil : try arguments.choice("scenario", from: scenarios, default: "success")
        var crashAfter: OrderStatus?
        if let text = arguments.value("crash-after") {
            guard let status = OrderStatus(rawValue: text) else {
                throw UsageError(message: "--crash-after must be an order status: "
                    + OrderStatus.allCases.map(\.rawValue).joined(separator: ", ") + "; got '\(text)'", command: "buy")
            }
            crashAfter = status
        }
        let json = arguments.has("json")
        let world = try await DemoWorld.open(context.paths, configPath: arguments.value("config"), crashAfter: crashAfter,
                                             terminal: json ? context.terminal.silenced : context.terminal)
        let product = try world.product(productID)
        try await world.start(user: user)
        if let scenario { try await world.script(scenario) }
        world.terminal.line("Buying \(product.displayName) for \(user)" + (scenario.map { " (scenario: \($0))" } ?? "") + ":")
        let outcome: Result<PurchaseResult, any Error>
        do {
            outcome = .success(try await world.engine.purchase(productID: productID, user: user))
        } catch {
            outcome = .failure(error)
        }
        try await world.close()
        if let crashAfter {
            world.terminal.line("(The order never reached '\(crashAfter.rawValue)', so there was no crash.)")
        }
        let result = try outcome.get()
        context.terminal.line(json ? try JSONOutput.text(JSONOutput.PurchaseEntry(result)) : world.describe(result))
        return 0
    }
}

extension DemoWorld {
    /// Sets up the store or the server for the next purchase.
    func script(_ scenario: String) async throws {
        switch scenario {
        case "cancel": await store.scriptNextPurchase(.userCancel)
        case "fail": await store.scriptNextPurchase(.fail(.paymentNotAllowed))
        case "ask-to-buy": await store.scriptNextPurchase(.askToBuy)
        case "lose-token": await store.scriptNextPurchase(.success, faults: DeliveryFaults(losesOrderToken: true))
        case "verifier-down": await server.failNext(1, with: .serverError(statusCode: 503))
        default: await store.scriptNextPurchase(.success)
        }
    }

    /// One sentence about how a purchase call ended.
    func describe(_ result: PurchaseResult) -> String {
        let order = result.order
        let name = printer.name(of: order.productID)
        switch result {
        case .success:
            return terminal.paint("✔ \(order.id): \(name) delivered to \(order.userID); transaction \(order.transactionID ?? "?") finished.", .green)
        case .userCancelled:
            return "✘ \(order.id): the user cancelled; nothing was charged."
        case .pending(_, .awaitingApproval):
            return terminal.paint("… \(order.id) waits for Ask to Buy approval and grants nothing yet. "
                + "Answer with `purchasekit-demo approve \(order.id)` or `decline \(order.id)`.", .yellow)
        case .pending(_, .deliveryRetrying):
            let next = order.nextAttemptAt.map { " (next try at \($0.demoText))" } ?? ""
            return terminal.paint("… \(order.id) is paid, but the server could not confirm the delivery; it is retried\(next). "
                + "Nothing is lost: `purchasekit-demo resume` retries at the next launch.", .yellow)
        case .pending(_, .actionRequired):
            return terminal.paint("… \(order.id) waits for the user to act in the store.", .yellow)
        case .pending(_, .subscriptionChangeScheduled):
            return terminal.paint("… \(order.id): \(name) begins at the current subscription's renewal date; "
                + "until then the current one stays (`purchasekit-demo renew` moves time).", .yellow)
        case .pending(_, .storeTimeout):
            return terminal.paint("… \(order.id): the store has not answered yet; the result arrives later.", .yellow)
        case .pending(_, .awaitingReview):
            return terminal.paint("… \(order.id): the store lost the order's token and more than one order fits its payment; "
                + "it waits for review (see `purchasekit-demo orders`), never credited by a guess.", .yellow)
        }
    }
}
