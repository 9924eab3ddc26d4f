import Foundation
import XCTest

/// "Every code sample in the docs compiles": each ```swift block of the docs
/// must appear, line for line (indentation aside), in one of the `*Samples.swift`
/// files beside this one (IntegrationGuideSamples.swift and the files for
/// single guide sections), which the test target compiles.
final class DocSamplesTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let documents = ["docs/IntegrationGuide.md", "README.md"]

    /// The ```swift blocks of a Markdown text, as lines.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current ?? [])
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Lines without indentation, blank lines dropped.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `block` occurs as consecutive lines of `file`.
    static func contains(_ file: [String], _ block: [String]) -> Bool {
        guard !block.isEmpty, block.count <= file.count else { return block.isEmpty }
        return (0...(file.count - block.count)).contains { start in
            Array(file[start..<(start + block.count)]) == block
        }
    }

    func testEverySwiftSampleOfTheDocsIsInTheCompiledSamples() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let sampleFiles = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix("Samples.swift") }
        XCTAssertTrue(sampleFiles.contains { $0.lastPathComponent == "IntegrationGuideSamples.swift" })
        let compiledFiles = try sampleFiles.map { Self.normalized(try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n")) }
        var checked = 0
        for document in Self.documents {
            let url = Self.packageRoot.appendingPathComponent(document)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            for (index, block) in Self.swiftBlocks(in: try String(contentsOf: url, encoding: .utf8)).enumerated() {
                checked += 1
                let lines = Self.normalized(block)
                XCTAssertTrue(compiledFiles.contains { Self.contains($0, lines) },
                              "\(document), Swift sample \(index + 1) is in no *Samples.swift file as written:\n\(lines.joined(separator: "\n"))")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 12, "the integration guide's samples were not found")
    }

    func testTheCheckNoticesASampleThatDrifted() {
        let file = Self.normalized(["struct A {", "    let b = 1", "}"])
        XCTAssertTrue(Self.contains(file, Self.normalized(["let b = 1", "}"])))
        XCTAssertFalse(Self.contains(file, Self.normalized(["let b = 2"])))
        XCTAssertFalse(Self.contains(file, Self.normalized(["struct A {", "}"])), "lines must be consecutive")
        XCTAssertEqual(Self.swiftBlocks(in: "text\n```swift\nlet x = 1\n```\n```sh\nls\n```\n"), [["let x = 1"]])
    }
}
