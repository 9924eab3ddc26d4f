import Foundation
import XCTest
@testable import PurchaseKit

final class SubscriptionPeriodTests: XCTestCase {
    private var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    private func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12, _ minute: Int = 0) -> Date {
        utc.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    func testValidPeriodsParse() throws {
        let expected: [(String, Int, SubscriptionPeriod.Unit)] = [
            ("P1D", 1, .day), ("P3D", 3, .day), ("P1W", 1, .week), ("P2W", 2, .week), ("P1M", 1, .month),
            ("P2M", 2, .month), ("P3M", 3, .month), ("P6M", 6, .month), ("P1Y", 1, .year),
        ]
        for (text, value, unit) in expected {
            let period = try SubscriptionPeriod(iso8601: text)
            XCTAssertEqual(period.value, value, text)
            XCTAssertEqual(period.unit, unit, text)
            XCTAssertEqual(period.iso8601, text)
            XCTAssertEqual(period.description, text)
            XCTAssertEqual(period, try SubscriptionPeriod(value: value, unit: unit))
        }
        // Seven days stay seven days; they are not folded into a week.
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P7D").iso8601, "P7D")
    }

    func testInvalidPeriodsAreTypedErrors() {
        let invalid = ["", "P", "1M", "PM", "P0M", "P-1M", "P1X", "P1M2D", "p1m", "P\u{FF11}M", "P١M", "P1.5M",
                       "P99999999999999999999M", "PT1M", "MP1"]
        for text in invalid {
            do {
                let period = try SubscriptionPeriod(iso8601: text)
                XCTFail("'\(text)' parsed as \(period)")
            } catch {
                XCTAssertEqual(error.code, .invalidConfiguration, text)
                XCTAssertFalse(error.advice.isEmpty, text)
            }
        }
    }

    func testNonPositiveValuesAreRefused() {
        for value in [0, -1, Int.min] {
            XCTAssertThrowsError(try SubscriptionPeriod(value: value, unit: .month)) { error in
                XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
            }
        }
    }

    func testInvalidPeriodInAProductDocumentIsADecodingError() {
        let json = #"{"groupID": "g", "period": "P0M"}"#
        XCTAssertThrowsError(try JSONDecoder().decode(SubscriptionInfo.self, from: Data(json.utf8))) { error in
            guard case DecodingError.dataCorrupted(let context)? = error as? DecodingError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["period"])
        }
    }

    func testMonthArithmeticClampsToTheEndOfShorterMonths() throws {
        let month = try SubscriptionPeriod(iso8601: "P1M")
        XCTAssertEqual(try month.date(after: utcDate(2023, 1, 31)), utcDate(2023, 2, 28))
        XCTAssertEqual(try month.date(after: utcDate(2024, 1, 31)), utcDate(2024, 2, 29))
        XCTAssertEqual(try month.date(after: utcDate(2024, 3, 31)), utcDate(2024, 4, 30))
        XCTAssertEqual(try month.date(after: utcDate(2024, 12, 31)), utcDate(2025, 1, 31))
        // Counting from the start, not month by month: Jan 31 + 2 months is Mar 31, not Mar 28/29.
        XCTAssertEqual(try month.date(after: utcDate(2024, 1, 31), count: 2), utcDate(2024, 3, 31))
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P2M").date(after: utcDate(2023, 12, 31)), utcDate(2024, 2, 29))
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P6M").date(after: utcDate(2023, 8, 31)), utcDate(2024, 2, 29))
    }

    func testYearArithmeticAcrossLeapYears() throws {
        let year = try SubscriptionPeriod(iso8601: "P1Y")
        XCTAssertEqual(try year.date(after: utcDate(2024, 2, 29)), utcDate(2025, 2, 28))
        XCTAssertEqual(try year.date(after: utcDate(2024, 2, 29), count: 4), utcDate(2028, 2, 29))
        XCTAssertEqual(try year.date(after: utcDate(2023, 3, 1)), utcDate(2024, 3, 1))
        // 1900 is not a leap year; 2000 is.
        XCTAssertEqual(try SubscriptionPeriod(value: 4, unit: .year).date(after: utcDate(1896, 2, 29)), utcDate(1900, 2, 28))
        XCTAssertEqual(try SubscriptionPeriod(value: 4, unit: .year).date(after: utcDate(1996, 2, 29)), utcDate(2000, 2, 29))
    }

    func testDayAndWeekArithmetic() throws {
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P3D").date(after: utcDate(2024, 2, 27), count: 2), utcDate(2024, 3, 4))
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P1W").date(after: utcDate(2023, 12, 28)), utcDate(2024, 1, 4))
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P2W").date(after: utcDate(2024, 2, 20)), utcDate(2024, 3, 5))
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P1D").date(after: utcDate(2024, 1, 1), count: 0), utcDate(2024, 1, 1))
    }

    func testArithmeticIsInUTCAndKeepsTheTimeOfDay() throws {
        // Half an hour before midnight UTC: a local time zone east of UTC would roll
        // Jan 31 into Feb 1 and land on Mar 1; in UTC the answer is Feb 29 23:30.
        let lateJanuary = utcDate(2024, 1, 31, 23, 30)
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P1M").date(after: lateJanuary), utcDate(2024, 2, 29, 23, 30))
        // Just after midnight UTC: a zone west of UTC would see Jan 31 and clamp differently.
        let earlyFebruary = utcDate(2024, 2, 1, 0, 30)
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P1M").date(after: earlyFebruary), utcDate(2024, 3, 1, 0, 30))
    }

    // MARK: Hostile values

    func testADecodedPeriodWithAHugeValueIsATypedDecodingError() {
        for text in ["P2000000000000000000W", "P9223372036854775807D", "P121M", "P11Y", "P522W", "P3654D", "P0W", "P-7D"] {
            let json = #"{"groupID": "g", "period": "\#(text)"}"#
            XCTAssertThrowsError(try JSONDecoder().decode(SubscriptionInfo.self, from: Data(json.utf8)), text) { error in
                guard case DecodingError.dataCorrupted(let context)? = error as? DecodingError else {
                    return XCTFail("\(text): \(error)")
                }
                XCTAssertEqual(context.codingPath.map(\.stringValue), ["period"], text)
            }
        }
        // Through the order-document decoder: a typed error that names the key path.
        let json = #"{"groupID": "g", "period": "P2000000000000000000W"}"#
        do {
            _ = try JSONDecoder().decode(SubscriptionInfo.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            let typed = PurchaseKitError.corrupt(error, what: "a product")
            XCTAssertEqual(typed.keyPath, "period")
        } catch {
            XCTFail("\(error)")
        }
    }

    func testTheLongestPeriodOfEachUnitIsTenYears() throws {
        for unit in SubscriptionPeriod.Unit.allCases {
            XCTAssertNoThrow(try SubscriptionPeriod(value: unit.maximumValue, unit: unit), "\(unit)")
            XCTAssertThrowsError(try SubscriptionPeriod(value: unit.maximumValue + 1, unit: unit), "\(unit)") { error in
                XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
            }
            XCTAssertThrowsError(try SubscriptionPeriod(value: Int.max, unit: unit), "\(unit)")
        }
        XCTAssertEqual(try SubscriptionPeriod(iso8601: "P10Y").date(after: utcDate(2024, 2, 29)), utcDate(2034, 2, 28))
    }

    func testArithmeticOverAbsurdCountsAndDatesThrowsInsteadOfTrapping() throws {
        let week = try SubscriptionPeriod(iso8601: "P1W")
        let start = utcDate(2026, 1, 1)
        let badDates = [Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: -.infinity),
                        Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: 1e15),
                        Date(timeIntervalSinceReferenceDate: -1e15)]
        for date in badDates {
            XCTAssertThrowsError(try week.date(after: date), "\(date.timeIntervalSinceReferenceDate)") { error in
                XCTAssertEqual((error as? PurchaseKitError)?.code, .invalidConfiguration)
            }
        }
        for count in [Int.max, Int.max / 7 + 1, 1 << 40, -1, Int.min] {
            XCTAssertThrowsError(try week.date(after: start, count: count), "\(count)")
        }
        for unit in SubscriptionPeriod.Unit.allCases {
            let longest = try SubscriptionPeriod(value: unit.maximumValue, unit: unit)
            XCTAssertThrowsError(try longest.date(after: start, count: Int.max), "\(unit)")
        }
        // Foundation's calendar answers "Int.max days later" with the same date; that must never pass for a period.
        XCTAssertThrowsError(try SubscriptionPeriod(value: 3_653, unit: .day).date(after: start, count: 2_524_987_998_000_000))
        // Right up to the edge of the supported dates, it still answers.
        let edge = SubscriptionPeriod.supportedDates.upperBound.addingTimeInterval(-8 * 86_400)
        XCTAssertEqual(try week.date(after: edge).timeIntervalSince(edge), 7 * 86_400)
        XCTAssertThrowsError(try week.date(after: edge, count: 2))
    }
}
