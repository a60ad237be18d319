import GeoCore
import MapStyle
import Testing

/// Layer filters in both syntaxes, with cases from maplibre-style-spec's
/// `src/feature_filter/feature_filter.test.ts`.
@Suite struct FeatureFilterTests {
    private func passes(_ filter: JSONValue?, _ properties: [String: ExpressionValue] = [:], id: ExpressionValue? = nil,
                        type: String? = nil, zoom: Double = 0) throws -> Bool {
        var feature = ExpressionFeature()
        feature.properties = properties
        feature.id = id
        feature.geometryType = type
        var globals = ExpressionGlobals()
        globals.zoom = zoom
        return try FeatureFilter(json: filter).matches(globals: globals, feature: feature)
    }

    @Test func propertyNamesAreThePropertiesAFilterReads() throws {
        #expect(try FeatureFilter(json: nil).propertyNames == [])
        #expect(try FeatureFilter(json: [">=", ["zoom"], 5]).propertyNames == [])
        #expect(try FeatureFilter(json: ["==", "class", "park"]).propertyNames == ["class"])
        #expect(try FeatureFilter(json: ["in", "class", "a", "b"]).propertyNames == ["class"])
        #expect(try FeatureFilter(json: ["has", "name"]).propertyNames == ["name"])
        #expect(try FeatureFilter(json: ["all", ["match", ["get", "class"], ["a", "b"], true, false], ["==", ["get", "brunnel"], "tunnel"]]).propertyNames
            == ["brunnel", "class"])
        // More of the feature than named properties: none to key a value by.
        #expect(try FeatureFilter(json: ["==", "$type", "Polygon"]).propertyNames == nil)
        #expect(try FeatureFilter(json: ["==", ["geometry-type"], "Polygon"]).propertyNames == nil)
        #expect(try FeatureFilter(json: ["has", "$id"]).propertyNames == nil)
        #expect(try FeatureFilter(json: ["==", ["get", ["get", "which"]], "park"]).propertyNames == nil)
        #expect(try FeatureFilter(json: ["==", ["get", "x", ["properties"]], 1]).propertyNames == nil)
    }

    @Test func noFilterLetsEverythingPass() throws {
        #expect(try passes(nil))
        #expect(try passes(.null))
    }

    @Test func legacyEqualityComparesStrictly() throws {
        #expect(try passes(["==", "foo", "bar"], ["foo": .string("bar")]))
        #expect(try !passes(["==", "foo", "bar"], ["foo": .string("baz")]))
        #expect(try passes(["==", "foo", 0], ["foo": .number(0)]))
        #expect(try !passes(["==", "foo", 0], ["foo": .string("0")]))
        #expect(try !passes(["==", "foo", 0], ["foo": .boolean(false)]))
        #expect(try !passes(["==", "foo", 0], [:]))
        #expect(try passes(["==", "foo", .null], ["foo": .null]))
        #expect(try !passes(["==", "foo", .null], [:]))
        #expect(try passes(["!=", "foo", 0], [:]))
    }

    @Test func legacyTypeAndId() throws {
        #expect(try passes(["==", "$type", "LineString"], type: "LineString"))
        #expect(try !passes(["==", "$type", "LineString"], type: "Point"))
        #expect(try passes(["==", "$id", 1234], id: .number(1234)))
        #expect(try !passes(["==", "$id", 1234], id: .string("1234")))
        #expect(try !passes(["==", "$id", 1234], ["id": .number(1234)]))
        #expect(try passes(["in", "$type", "Point", "Polygon"], type: "Polygon"))
        #expect(try passes(["has", "$id"], id: .number(0)))
        #expect(try !passes(["has", "$id"]))
    }

    @Test func legacyOrderingOnlyWithinOneType() throws {
        #expect(try passes(["<", "foo", 0], ["foo": .number(-1)]))
        #expect(try !passes(["<", "foo", 0], ["foo": .number(0)]))
        #expect(try !passes(["<", "foo", 0], ["foo": .string("-1")]))
        #expect(try passes(["<", "foo", "0"], ["foo": .string("-1")]))
        #expect(try !passes(["<", "foo", "0"], ["foo": .number(-1)]))
        #expect(try passes(["<=", "foo", 0], ["foo": .number(0)]))
    }

    @Test func legacyMembershipAndCombinators() throws {
        #expect(try passes(["in", "foo", 0, 1], ["foo": .number(1)]))
        #expect(try !passes(["in", "foo", 0, 1], ["foo": .string("1")]))
        #expect(try !passes(["in", "foo"], ["foo": .number(1)]))
        #expect(try passes(["!in", "foo", 0], [:]))
        #expect(try passes(["has", "foo"], ["foo": .null]))
        #expect(try passes(["!has", "foo"], [:]))
        #expect(try passes(["any", ["==", "x", 1], ["==", "y", 1]], ["y": .number(1)]))
        #expect(try !passes(["all", ["==", "x", 1], ["==", "y", 1]], ["y": .number(1)]))
        #expect(try passes(["none", ["==", "x", 1], ["==", "y", 1]], ["z": .number(1)]))
        #expect(try !passes(["any"]))
        #expect(try passes(["all"]))
    }

    @Test func expressionFilters() throws {
        // feature_filter.test.ts "expression, zoom": ["all", [">=", ["zoom"], 1], ...]
        let filter: JSONValue = ["all", [">", ["get", "x"], 1], ["<", ["zoom"], 2]]
        #expect(try passes(filter, ["x": .number(1.5)], zoom: 1))
        #expect(try !passes(filter, ["x": .number(1.5)], zoom: 2))
        #expect(try !passes(filter, ["x": .number(0)], zoom: 1))
        // A filter that fails to evaluate (x is a string) counts as false.
        #expect(try !passes([">", ["get", "x"], 1], ["x": .string("a")]))
        #expect(throws: ExpressionParseFailure.self) { try FeatureFilter(json: ["==", ["get", "x"]]) }
    }
}
