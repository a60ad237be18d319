import Foundation
import GeoCore
import GeoTestSupport
import MapStyle
import Testing

/// maplibre-style-spec's expression conformance suite (`maplibre-expressions` in the shared
/// data, 394 `test.json`), compared as its harness (`test/integration/expression/
/// expression.test.ts`) compares: the compiled result and the outputs deep-equal, numbers cut to
/// 6 significant figures (`stripPrecision`), parse and evaluation errors with their key paths
/// and MapLibre's message texts.
@Suite struct ExpressionConformanceTests {
    /// Fixtures expected to fail, with the reason (as MapLibre's own ignore list names its own).
    static let knownFailures: [String: String] = [:]

    @Test func everyFixturePassesExceptTheNamedOnes() throws {
        guard let root = try Fixtures.url("maplibre-expressions") else { return }
        let tests = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.lastPathComponent == "test.json" }
        #expect(tests.count == 394)
        var failed: [String] = []
        for test in tests {
            let name = test.deletingLastPathComponent().path.replacingOccurrences(of: root.path + "/", with: "")
            let data = try Data(contentsOf: test)
            let fixture = try JSONDecoder().decode(JSONValue.self, from: data)
            let result = try JSONDecoder().decode(JSONValue.self, from: Data(try ExpressionTestFixture.run(data).utf8))
            let expected = fixture.member("expected") ?? .null
            let outputsMatch = expected.member("compiled")?.member("result") == .string("error")
                || Self.same(result.member("outputs") ?? .null, expected.member("outputs") ?? .null)
            if !Self.same(result.member("compiled") ?? .null, expected.member("compiled") ?? .null) || !outputsMatch {
                failed.append(name)
            }
        }
        let unexpected = failed.filter { Self.knownFailures[$0] == nil }.sorted()
        let nowPassing = Self.knownFailures.keys.filter { !failed.contains($0) }.sorted()
        #expect(unexpected.isEmpty, "failing: \(unexpected)")
        #expect(nowPassing.isEmpty, "passing now, take off the list: \(nowPassing)")
    }

    /// The harness's `deepEqual(a, b, 6)`: same JSON, numbers equal once cut to 6 significant figures.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return strip(x) == strip(y)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)): return Set(x.keys) == Set(y.keys) && x.allSatisfy { same($0.value, y[$0.key]!) }
        default: return a == b
        }
    }

    /// The harness's `stripPrecision(x, 6)`: rounded down to 6 significant figures but not below
    /// the units digit, twice.
    static func strip(_ x: Double) -> Double {
        guard x != 0, x.isFinite else { return x }
        let multiplier = pow(10, max(0, 6 - log10(abs(x)).rounded(.up)))
        let once = (x * multiplier).rounded(.down) / multiplier
        return (once * multiplier).rounded(.down) / multiplier
    }
}

extension JSONValue {
    func member(_ name: String) -> JSONValue? { if case .object(let o) = self { o[name] } else { nil } }
}
