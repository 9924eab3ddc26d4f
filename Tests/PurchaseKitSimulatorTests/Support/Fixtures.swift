import Foundation
import XCTest

/// The project's own StoreKit configuration fixtures.
enum Fixtures {
    static func url(_ folder: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let base = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures", withExtension: nil), file: file, line: line)
        return base.appendingPathComponent(folder).appendingPathComponent(name)
    }

    static func storeKit(_ name: String) throws -> URL { try url("StoreKit", name) }
    static func malformed(_ name: String) throws -> URL { try url("Malformed", name) }
}
