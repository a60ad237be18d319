import Foundation
import GeoCore
import MapStyle
import Testing

/// Hostile expressions and fixtures: a typed error or a bounded evaluation, never a trap or a hang.
@Suite struct ExpressionRobustnessTests {
    /// `["let", "v0", 1, ["let", "v1", ["+", ["var", "v0"], ["var", "v0"]], … ["var", "vN"]]]`:
    /// each level reads the one before twice.
    private func doublingLets(_ depth: Int) -> JSONValue {
        var body: JSONValue = .array([.string("var"), .string("v\(depth)")])
        for level in stride(from: depth, through: 1, by: -1) {
            let previous: JSONValue = .array([.string("var"), .string("v\(level - 1)")])
            body = .array([.string("let"), .string("v\(level)"), .array([.string("+"), previous, previous]), body])
        }
        return .array([.string("let"), .string("v0"), .array([.string("get"), .string("one")]), body])
    }

    @Test func letBindingsAreEvaluatedOncePerEvaluation() throws {
        // 60 levels: 2^60 evaluations if every `var` re-evaluated its binding.
        let e = try StyleExpression(json: doublingLets(60), property: PropertySpecification(json: ["type": "number"]))
        var feature = ExpressionFeature()
        feature.properties = ["one": .number(1)]
        #expect(try e.evaluate(globals: ExpressionGlobals(), feature: feature) == .number(0x1p60))
    }

    @Test func nestedOverloadedOperatorsParseEachArgumentOnce() {
        // ["all", ["all", … ["all", "oops", true] …, true], true], 100 deep: "all" has two
        // overloads for two arguments, and trying each re-parsed the inner "all": 3^100 parses.
        var e: JSONValue = "oops"
        for _ in 0..<100 { e = ["all", e, true] }
        let property = PropertySpecification(json: ["type": "boolean"])
        #expect(throws: ExpressionParseFailure(errors: [ExpressionParsingError(
            key: String(repeating: "[1]", count: 99),
            message: "Expected arguments of type (boolean, boolean) | (boolean...), but found (string, boolean) instead.")])) {
            try StyleExpression(json: e, property: property)
        }
    }

    @Test func nestingBeyondTheLimitIsAParseErrorNotAStackOverflow() {
        // 250 nested lets overflowed the stack (SIGSEGV) while evaluating their chain of vars.
        let failure = #expect(throws: ExpressionParseFailure.self) {
            try StyleExpression(json: doublingLets(250), property: PropertySpecification(json: ["type": "number"]))
        }
        #expect(failure?.errors.map(\.message) == ["Expressions may nest at most 128 levels deep."])
        #expect(failure?.errors.first?.key.hasPrefix(String(repeating: "[3]", count: 126)) == true)
    }

    @Test func aFixtureThatIsNotJSONIsATypedErrorSayingWhere() {
        let cut = #expect(throws: ExpressionFixtureError.self) { try ExpressionTestFixture.run(Data("{\"expression\": [".utf8)) }
        #expect(cut?.message == "the fixture is not JSON: line 1, column 17 (byte offset 16): the text ends inside a JSON value")
        #expect(throws: ExpressionFixtureError.self) { try ExpressionTestFixture.run(Data("[1, 2]".utf8)) }
    }

    @Test func anAbsurdTileAddressIsNoTile() throws {
        let fixture = #"""
        {"expression": ["within", {"type": "Polygon", "coordinates": [[[0, 0], [0, 5], [5, 5], [5, 0], [0, 0]]]}],
         "inputs": [[{"canonicalID": {"z": 1e300, "x": -1e300, "y": 0.5}}, {"geometry": {"type": "Point", "coordinates": [1, 1]}}]]}
        """#
        let result = try ExpressionTestFixture.run(Data(fixture.utf8))
        #expect(result.hasSuffix(#""outputs":[false]}"#))
    }

    @Test func aSelfReferentialLetIsAParseError() {
        let property = PropertySpecification(json: nil)
        #expect(throws: ExpressionParseFailure.self) { try StyleExpression(json: ["let", "a", ["var", "a"], ["var", "a"]], property: property) }
    }
}
