import Foundation
@testable import PurchaseKit
import PurchaseKitSimulator
import XCTest

/// Order tokens link a store transaction to the user who paid: they must be
/// unguessable, never repeat, and never come from a replay seed in an app.
final class OrderTokenTests: XCTestCase {
    func testTokensAreVersionFourUUIDs() {
        var minter = OrderTokenMinter(seed: nil)
        for _ in 0..<200 {
            let token = minter.next()
            let uuid = UUID(uuidString: token)
            XCTAssertNotNil(uuid, token)
            XCTAssertEqual(token, token.lowercased())
            XCTAssertEqual((uuid?.uuid.6 ?? 0) >> 4, 4, "version nibble of \(token)")
            XCTAssertEqual((uuid?.uuid.8 ?? 0) & 0xC0, 0x80, "variant bits of \(token)")
        }
    }

    func testTheDefaultOrderIdsAreDistinctVersionFourUUIDs() async throws {
        let generator = UUIDOrderGenerator()
        let request = OrderRequest(productID: "p", userID: "u", quantity: 1)
        var seen: Set<String> = []
        for _ in 0..<1_000 {
            let id = try await generator.makeOrderID(for: request)
            let uuid = UUID(uuidString: id)
            XCTAssertNotNil(uuid, id)
            XCTAssertEqual(id, id.lowercased())
            XCTAssertEqual((uuid?.uuid.6 ?? 0) >> 4, 4, "version nibble of \(id)")
            XCTAssertTrue(seen.insert(id).inserted, "repeated id \(id)")
        }
    }

    /// The system's bits come in batches of 32 values; a copy of the source,
    /// of a minter or of the default generator must never hand out a value
    /// or an id that another copy already has (as a copied buffer would).
    func testCopiesOfTheSystemSourceShareOneBatchAndNeverRepeat() async throws {
        var first = SystemRandomBits()
        var values: Set<UInt64> = [first.next()]   // a batch is drawn before the copy
        var second = first
        for _ in 0..<300 {
            XCTAssertTrue(values.insert(first.next()).inserted)
            XCTAssertTrue(values.insert(second.next()).inserted)
        }

        var minter = OrderTokenMinter(seed: nil)
        var tokens: Set<String> = [minter.next()]
        var copy = minter
        for _ in 0..<100 {
            XCTAssertTrue(tokens.insert(minter.next()).inserted)
            XCTAssertTrue(tokens.insert(copy.next()).inserted)
        }

        let generator = UUIDOrderGenerator()
        let request = OrderRequest(productID: "p", userID: "u", quantity: 1)
        var ids: Set<String> = [try await generator.makeOrderID(for: request)]
        let other = generator
        for _ in 0..<100 {
            let id = try await generator.makeOrderID(for: request)
            let otherID = try await other.makeOrderID(for: request)
            XCTAssertTrue(ids.insert(id).inserted)
            XCTAssertTrue(ids.insert(otherID).inserted)
        }
    }

    func testTheFormatterWritesEveryNibbleInPlace() {
        XCTAssertEqual(OrderTokenMinter.format(0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210),
                       "01234567-89ab-cdef-fedc-ba9876543210")
    }

    /// Two launches of an app on the default configuration must not mint the
    /// same sequence (they once did: the generator was seeded by a constant).
    func testTwoEnginesOnTheDefaultConfigurationMintDifferentTokens() async throws {
        var tokens: Set<String> = []
        for _ in 0..<3 {
            let world = World()
            let engine = try await world.engine()
            let result = try await engine.purchase(productID: Catalog.coins, user: "alice")
            guard case .success(let order) = result else { return XCTFail("\(result)") }
            tokens.insert(try XCTUnwrap(order.token))
        }
        XCTAssertEqual(tokens.count, 3)
    }

    /// A seeded generator that repeats itself (as a replayed launch would) is
    /// caught: the engine never gives a new order a token an open order holds.
    func testASeededTokenHeldByAnOpenOrderIsNeverReused() async throws {
        let world = World()
        await world.store.setDefaultBehavior(.askToBuy)
        var configuration = world.configuration()
        configuration.orderTokenSeed = 7
        let first = try await world.engine(configuration)
        _ = try await first.purchase(productID: Catalog.coins, user: "alice")
        await world.store.setDefaultBehavior(.success)
        configuration.orderGenerator = PrefixedOrderGenerator(prefix: "second")
        let second = try await world.engine(configuration)
        let result = try await second.purchase(productID: Catalog.coins, user: "bob")
        guard case .success(let bobOrder) = result else { return XCTFail("\(result)") }
        let aliceOrders = await second.openOrders(user: "alice")
        let aliceOrder = try XCTUnwrap(aliceOrders.first)
        XCTAssertNotEqual(aliceOrder.token, bobOrder.token)
        XCTAssertEqual(aliceOrder.status, .deferred)
        XCTAssertNil(aliceOrder.transaction)
        XCTAssertEqual(bobOrder.userID, "bob")
    }
}

/// Order ids with a prefix, so two launches do not reuse each other's ids.
struct PrefixedOrderGenerator: OrderGenerator {
    let prefix: String
    private let counter = Locked(0)
    init(prefix: String) { self.prefix = prefix }
    func makeOrderID(for request: OrderRequest) async throws -> String {
        "\(prefix)-\(counter.withLock { $0 += 1; return $0 })"
    }
}
