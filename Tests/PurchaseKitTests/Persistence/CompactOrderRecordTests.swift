import Foundation
import XCTest
@testable import PurchaseKit

/// The ledger's line format: every kept field round-trips exactly, whatever
/// the strings hold, and a damaged line is refused naming the field, never its value.
final class CompactOrderRecordTests: XCTestCase {
    private func decode(_ line: [UInt8], version: Int? = FileOrderLedger.header.version) throws -> Order {
        try line.dropLast().withUnsafeBytes { bytes in try CompactOrderRecord.decode(bytes, version: version) }
    }

    private func decodeError(_ text: String) -> CompactOrderRecord.Damage? {
        Array(text.utf8).withUnsafeBytes { bytes in
            do throws(CompactOrderRecord.Damage) {
                _ = try CompactOrderRecord.decode(bytes)
                return nil
            } catch {
                return error
            }
        }
    }

    private let strings = ["", "plain", "tab\there", "line\nfeed", "carriage\rreturn", "100%", "%41", "=", "-",
                           "café", "caf\u{E9}", "cafe\u{301}", "🧾", "\u{0}nul", String(repeating: "long-", count: 400)]

    func testRandomOrdersRoundTripExactlyWithoutTheirReceiptMetadataAndHint() throws {
        var random = SeededRandomNumberGenerator(seed: 7)
        for round in 0..<2_000 {
            func pick() -> String { strings.randomElement(using: &random) ?? "" }
            func maybeDate() -> Date? {
                Bool.random(using: &random) ? Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e10, using: &random)) : nil
            }
            var order = Order(id: pick(), productID: pick(), userID: pick(),
                              token: Bool.random(using: &random) ? pick() : nil,
                              quantity: Int.random(in: 1...Int.max, using: &random),
                              source: OrderSource.allCases.randomElement(using: &random) ?? .purchase,
                              status: OrderStatus.allCases.randomElement(using: &random) ?? .created,
                              createdAt: Date(timeIntervalSinceReferenceDate: Double.random(in: 0...1e9, using: &random)),
                              metadata: ["secret": pick()])
            order.updatedAt = order.createdAt.addingTimeInterval(0.1 * Double(round))
            order.paymentBeganAt = maybeDate()
            order.paymentFinishedAt = maybeDate()
            order.verificationAttempts = Int.random(in: 0...1_000, using: &random)
            order.nextAttemptAt = maybeDate()
            order.hint = pick()
            order.lastErrorCode = Bool.random(using: &random) ? PurchaseKitError.Code(rawValue: pick()) : nil
            order.storeFailureReason = Bool.random(using: &random) ? StoreFailureReason.allCases.randomElement(using: &random) : nil
            order.finishedAt = maybeDate()
            order.productType = Bool.random(using: &random) ? ProductType.allCases.randomElement(using: &random) : nil
            order.subscriptionGroupID = Bool.random(using: &random) ? pick() : nil
            if Bool.random(using: &random) {
                let tokenChoice = Int.random(in: 0...2, using: &random)
                order.transaction = StoreTransaction(
                    id: pick(), originalID: Bool.random(using: &random) ? pick() : nil,
                    productID: Bool.random(using: &random) ? order.productID : pick(),
                    purchaseDate: order.createdAt.addingTimeInterval(1), expirationDate: maybeDate(), revocationDate: maybeDate(),
                    revocationReason: Bool.random(using: &random) ? RevocationReason.allCases.randomElement(using: &random) : nil,
                    quantity: Bool.random(using: &random) ? order.quantity : Int.random(in: 1...99, using: &random),
                    orderToken: tokenChoice == 0 ? order.token : tokenChoice == 1 ? nil : pick(),
                    receipt: Data(pick().utf8), environment: StoreEnvironment.allCases.randomElement(using: &random) ?? .sandbox)
            }
            let line = CompactOrderRecord.line(for: order)
            XCTAssertEqual(line.last, 0x0A)
            XCTAssertEqual(line.filter { $0 == 0x0A }.count, 1, "one line, whatever the strings hold")
            let decoded = try decode(line)
            XCTAssertEqual(decoded, CompactOrderRecord.compact(order), "round \(round)")
            XCTAssertTrue(decoded.id.utf8.elementsEqual(order.id.utf8), "the exact bytes of the id")
            XCTAssertEqual(decoded.transaction?.receipt, order.transaction.map { _ in Data() })
            XCTAssertEqual(decoded.metadata, [:])
            XCTAssertNil(decoded.hint)
        }
    }

    func testAnOrderWithoutATransactionHasEmptyTransactionFields() throws {
        let order = Order(id: "o-1", productID: "p", userID: "u", createdAt: Date(timeIntervalSinceReferenceDate: 1.5))
        let line = String(decoding: CompactOrderRecord.line(for: order), as: UTF8.self)
        XCTAssertEqual(line, "=o-1\t=u\t=p\t1\t=created\t=purchase\t\t1.5\t1.5\t\t\t0\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n")
        XCTAssertEqual(try decode(Array(line.utf8)), order)
    }

    func testTheProductTypeAndGroupRoundTripAndAVersion1LineReadsWithoutThem() throws {
        var order = Order(id: "o-1", productID: "p", userID: "u", productType: .autoRenewable, subscriptionGroupID: "g",
                          createdAt: Date(timeIntervalSinceReferenceDate: 1.5))
        order.transaction = StoreTransaction(id: "t-1", productID: "p", purchaseDate: Date(timeIntervalSinceReferenceDate: 3))
        let line = CompactOrderRecord.line(for: order)
        XCTAssertEqual(try decode(line), CompactOrderRecord.compact(order))
        let text = String(decoding: line.dropLast(), as: UTF8.self)
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
        XCTAssertEqual(fields.suffix(2), ["=autoRenewable", "=g"])
        // A line of a version 1 segment: its first 26 fields. In a version 2 segment it is a torn line.
        let version1 = Array((fields.prefix(26).joined(separator: "\t") + "\n").utf8)
        var expected = CompactOrderRecord.compact(order)
        expected.productType = nil
        expected.subscriptionGroupID = nil
        XCTAssertEqual(try decode(version1, version: 1), expected)
        XCTAssertEqual(try decode(version1, version: nil), expected, "a segment whose header is damaged")
        XCTAssertThrowsError(try decode(version1))
        XCTAssertThrowsError(try decode(line, version: 1))
    }

    func testDamagedLinesAreRefusedNamingTheFieldButNeverTheValue() throws {
        let good = String(decoding: CompactOrderRecord.line(for: {
            var order = Order(id: "o-1", productID: "p", userID: "u", token: "secret-token", createdAt: Date(timeIntervalSinceReferenceDate: 2))
            order.transaction = StoreTransaction(id: "t-1", productID: "p", purchaseDate: Date(timeIntervalSinceReferenceDate: 3),
                                                 orderToken: "secret-token")
            return order
        }()).dropLast(), as: UTF8.self)
        var fields = good.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(fields.count, 28)
        func with(_ index: Int, _ value: String) -> String {
            var copy = fields
            copy[index] = value
            return copy.joined(separator: "\t")
        }
        let cases: [(String, String)] = [
            (fields.dropLast().joined(separator: "\t"), "it has 27 fields instead of 28"),
            (good + "\t", "it has 29 fields instead of 28"),
            (fields.prefix(25).joined(separator: "\t"), "it has 25 fields instead of 28"),
            (with(26, "=gadget"), "field 'productType' has an unknown value"),
            (with(0, ""), "field 'id' is missing"),
            (with(0, "o-1"), "field 'id' is not a string"),
            (with(4, "=shipped"), "field 'status' has an unknown value"),
            (with(3, "many"), "field 'quantity' is not a whole number"),
            (with(7, "nan"), "field 'created' is not a date"),
            (with(7, "1é"), "field 'created' is not a number"),
            (with(6, "=secret%2"), "field 'token' has a broken escape"),
            (with(6, "=secret%zz"), "field 'token' has a broken escape"),
            (with(6, "=%FF%FE"), "field 'token' is not valid UTF-8"),
            (with(16, ""), "field 'tx.id' is missing while other transaction fields are set"),
            (with(25, "=moon"), "field 'tx.environment' has an unknown value"),
            (with(19, ""), "field 'tx.purchased' is missing"),
        ]
        for (line, expected) in cases {
            let damage = decodeError(line)
            XCTAssertEqual(damage?.description, expected, line.debugDescription)
            XCTAssertFalse(damage?.description.contains("secret") ?? true)
        }
        fields[24] = "-"
        XCTAssertNil(try decode(Array((fields.joined(separator: "\t") + "\n").utf8)).transaction?.orderToken,
                     "'-' is a transaction without a token")
    }
}
