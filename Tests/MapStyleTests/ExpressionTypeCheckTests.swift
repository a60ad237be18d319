import GeoCore
import MapStyle
import Testing

/// The parser's type checking, with expressions and results from the conformance fixtures
/// (`typecheck/`, `interpolate/linear`) and the spec's examples.
@Suite struct ExpressionTypeCheckTests {
    private let numberProperty = PropertySpecification(json: .object(["type": .string("number")]))
    private let anyProperty = PropertySpecification(json: nil)

    private func parse(_ json: JSONValue, _ property: PropertySpecification) throws(ExpressionParseFailure) -> StyleExpression {
        try StyleExpression(json: json, property: property)
    }

    private func errors(_ json: JSONValue, _ property: PropertySpecification) -> [ExpressionParsingError] {
        do {
            _ = try parse(json, property)
            return []
        } catch {
            return error.errors
        }
    }

    @Test func anArrayAssertionHasItsItemTypeAndLength() throws {
        // typecheck/array-item-subtyping
        let e = try parse(["array", "number", 2, ["get", "x"]], PropertySpecification(json: ["type": "array"]))
        #expect(e.type == .array(.number, length: 2))
        #expect(e.type.description == "array<number, 2>")
        #expect(e.kind == .source)
    }

    @Test func anArrayOfTheWrongItemTypeIsRejectedAtTheRoot() {
        // typecheck/array-invalid-item
        let property = PropertySpecification(json: ["type": "array", "value": "string", "length": 2])
        let found = errors(["array", "number", 2, ["get", "x"]], property)
        #expect(found == [ExpressionParsingError(key: "", message: "Expected array<string, 2> but found array<number, 2> instead.")])
    }

    @Test func aWrongArgumentIsReportedAtItsKeyPath() {
        #expect(errors(["+", 1, "a"], numberProperty) == [ExpressionParsingError(key: "[2]", message: "Expected number but found string instead.")])
        #expect(errors(["case", ["==", 1, 1], 2, "three"], numberProperty).map(\.key) == ["[3]"])
        #expect(errors(["interpolate", ["linear"], ["zoom"], 0, 1, 0, 2], numberProperty).map(\.key) == ["[5]"])
    }

    @Test func aValueWhereANumberIsExpectedIsAssertedAtRunTime() throws {
        // interpolate/linear: x = 5 → 150, x = "abcd" → an evaluation error at [2].
        let e = try parse(["interpolate", ["linear"], ["get", "x"], 0, 100, 10, 200], numberProperty)
        var feature = ExpressionFeature()
        feature.properties = ["x": .number(5)]
        #expect(try e.evaluate(globals: ExpressionGlobals(), feature: feature) == .number(150))
        feature.properties = ["x": .string("abcd")]
        #expect(throws: ExpressionEvaluationError(message: "Expected value to be of type number, but found string instead.", key: "[2]")) {
            try e.evaluate(globals: ExpressionGlobals(), feature: feature)
        }
    }

    @Test func zoomMayOnlyFeedATopLevelCurve() {
        #expect(errors(["+", ["zoom"], 1], numberProperty).map(\.message)
            == [#""zoom" expression may only be used as input to a top-level "step" or "interpolate" expression."#])
        let camera = try? parse(["step", ["zoom"], 0, 10, 1], numberProperty)
        #expect(camera?.kind == .camera)
    }

    @Test func constantSubexpressionsAreFoldedAndTheirErrorsReportedAtParseTime() {
        // ["at", 5, [1, 2]] is constant: its out-of-bounds index fails while parsing.
        #expect(errors(["at", 5, ["literal", [1, 2]]], anyProperty).map(\.message) == ["Array index out of bounds: 5 > 1."])
    }

    @Test func typeNamesFollowTheSpec() {
        #expect(ExpressionType.array(.value, length: nil).description == "array")
        #expect(ExpressionType.array(.string, length: nil).description == "array<string>")
        #expect(ExpressionType.value.accepts(.array(.number, length: 3)))
        #expect(!ExpressionType.array(.string, length: 2).accepts(.array(.number, length: 2)))
        // An empty array of values fits any array type of unfixed length, not one of length 2.
        #expect(ExpressionType.array(.number, length: nil).accepts(.array(.value, length: 0)))
        #expect(!ExpressionType.array(.number, length: 2).accepts(.array(.value, length: 0)))
    }
}
