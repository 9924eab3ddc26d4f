import Foundation

/// What the order generator is asked for.
public struct OrderRequest: Sendable, Hashable {
    /// The product to buy.
    public var productID: String
    /// The buyer.
    public var userID: String
    /// How many units.
    public var quantity: Int
    /// The app's data for the order.
    public var metadata: [String: String]

    /// Creates a request for an order.
    public init(productID: String, userID: String, quantity: Int = 1, metadata: [String: String] = [:]) {
        self.productID = productID
        self.userID = userID
        self.quantity = quantity
        self.metadata = metadata
    }
}

/// Makes order ids. Usually the app's server creates the order and returns its id.
///
/// Throwing fails the purchase with ``PurchaseKitError/Code/orderGenerationFailed``
/// before anything is charged.
public protocol OrderGenerator: Sendable {
    /// Returns a new, unique order id. It travels on the payment, so keep it short.
    func makeOrderID(for request: OrderRequest) async throws -> String
}

/// Makes a random UUID per order (version 4, lowercase), for apps without a
/// server-side order. The bits come from the system's cryptographic random
/// source, as the order token's do (on Linux, Foundation's `UUID()` opens
/// `/dev/urandom` for every id; this asks the kernel once for many ids,
/// without a file). Copies of a generator share one source.
public struct UUIDOrderGenerator: OrderGenerator {
    private let minter = OrderTokenMinter(seed: nil)

    /// Creates a generator.
    public init() {}

    public func makeOrderID(for request: OrderRequest) async throws -> String {
        // An unseeded minter's only state is its system source, whose copies
        // share one batch behind its own lock: a copy per call repeats nothing.
        var minter = self.minter
        return minter.next()
    }
}
