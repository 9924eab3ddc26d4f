import Foundation
import PurchaseKit

extension Commands {
    static let resume = Command(
        name: "resume", synopsis: "resume",
        summary: "Launch the app again: recover what a crash or an outage left.",
        details: """
        Starts the engine on the saved state as an app does at launch: the saved
        orders load, the store replays the transactions left unfinished, owed
        deliveries are retried, delivered transactions finished. Prints what happened.
        """,
        spec: .init()
    ) { arguments, context in
        _ = try arguments.positionals([])
        let world = try await DemoWorld.open(context.paths, terminal: context.terminal)
        let before = try await world.orderStore.loadOpenOrders().orders
        let unfinished = await world.store.unfinishedTransactions()
        context.terminal.line("Launching: \(before.count) open order(s) saved, \(unfinished.count) unfinished transaction(s) in the store.")
        try await world.start()
        let after = await world.engine.openOrders()
        try await world.close()
        if after.isEmpty {
            context.terminal.line(context.terminal.paint("✔ Recovered: no open orders left.", .green))
        } else {
            context.terminal.line("Still open:")
            Summary(world: world).printOpenOrders(after)
        }
        return 0
    }

    static let approve = askToBuy(name: "approve", approves: true)
    static let decline = askToBuy(name: "decline", approves: false)

    private static func askToBuy(name: String, approves: Bool) -> Command {
        Command(
            name: name, synopsis: "\(name) [ORDER_ID]",
            summary: approves ? "A parent approves an Ask to Buy request." : "A parent declines an Ask to Buy request.",
            details: (approves
                ? "The store charges the account and delivers the purchase to the app, which\ncredits the order's user although no purchase call is waiting any more."
                : "The store reports the request as declined; nothing is charged or granted.")
                + "\n\nWithout ORDER_ID, the one order waiting for approval (an error when several wait).",
            spec: .init()
        ) { arguments, context in
            guard arguments.positionals.count <= 1 else {
                throw UsageError(message: "unexpected argument '\(arguments.positionals[1])'", command: name)
            }
            let world = try await DemoWorld.open(context.paths, terminal: context.terminal)
            try await world.start()
            let waiting = await world.engine.openOrders().filter { $0.status == .deferred && $0.token != nil }
            let chosen: Order?
            if let orderID = arguments.positionals.first {
                chosen = waiting.first { $0.id == orderID }
                if chosen == nil {
                    try await world.close()
                    throw DemoError(message: "Order '\(orderID)' is not waiting for approval. See `purchasekit-demo orders`.")
                }
            } else {
                guard waiting.count == 1 else {
                    try await world.close()
                    throw DemoError(message: waiting.isEmpty
                        ? "No order is waiting for approval. Buy with `--scenario ask-to-buy` first."
                        : "Several orders wait for approval (\(waiting.map(\.id).joined(separator: ", "))); name one.")
                }
                chosen = waiting.first
            }
            guard let order = chosen, let token = order.token else {
                try await world.close()
                return 1
            }
            let orderID = order.id
            context.terminal.line("A parent \(approves ? "approves" : "declines") \(orderID):")
            if approves {
                try await world.store.approveAskToBuy(orderToken: token)
            } else {
                try await world.store.declineAskToBuy(orderToken: token)
            }
            try await world.close()
            return 0
        }
    }
}
