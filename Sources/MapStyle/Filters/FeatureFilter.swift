public import GeoCore

/// A layer's `filter` (spec v8 "Other: Filter"): an expression of type boolean, or the legacy
/// syntax (`["==", "class", "park"]`, `["in", "$type", "Point", "LineString"]`, `["!has", "name"]`,
/// `["none", …]`) rewritten as the equivalent expression over the `filter-*` operators, as
/// MapLibre does. A feature passes when the filter evaluates to `true`; an evaluation error or a
/// non-boolean counts as `false` (the filter property's default).
public struct FeatureFilter: Sendable {
    let expression: StyleExpression?
    /// Whether evaluating needs the feature's geometry (`within`, `distance`).
    public let needsGeometry: Bool

    /// The filter property's specification: boolean, data-driven, zoom and feature.
    private static let property = PropertySpecification(json: .object([
        "type": .string("boolean"), "property-type": .string("data-driven"), "default": .bool(false),
        "expression": .object(["interpolated": .bool(false), "parameters": .array([.string("zoom"), .string("feature")])]),
    ]))

    /// Parses a filter; nil (no filter) lets every feature pass.
    /// - Throws: the parse errors of the expression (or of the expression a legacy filter becomes).
    public init(json: JSONValue?, globalState: [String: ExpressionValue] = [:]) throws(ExpressionParseFailure) {
        guard let json, json != .null else {
            expression = nil
            needsGeometry = false
            return
        }
        let filter = Self.classify(json) == .legacy ? Self.convert(json) : json
        expression = try StyleExpression(json: filter, property: Self.property, globalState: globalState, asProperty: false)
        needsGeometry = Self.readsGeometry(filter)
    }

    /// The feature properties the filter reads (``StyleExpression/propertyNames``): none
    /// without a filter; nil when it reads more of the feature.
    public var propertyNames: [String]? { expression.map(\.propertyNames) ?? [] }

    /// Whether the feature passes.
    public func matches(globals: ExpressionGlobals, feature: ExpressionFeature, tile: CanonicalTile? = nil) -> Bool {
        guard let expression else { return true }
        return (try? expression.evaluate(globals: globals, feature: feature, tile: tile)) == .boolean(true)
    }

    private enum Syntax { case expression, legacy, neutral }

    /// Which syntax a filter is written in (MapLibre's `isExpressionFilter`): legacy forms are
    /// recognised by their shapes (a property name where an expression would be), `any` and
    /// `all` by their children.
    private static func classify(_ filter: JSONValue) -> Syntax {
        if case .bool = filter { return .neutral }
        guard case .array(let f) = filter, let op = f.first else { return .legacy }
        switch op {
        case .string("has"):
            if f.count < 2 || f[1] == .string("$id") || f[1] == .string("$type") { return .legacy }
            return f.count == 2 ? .neutral : .expression
        case .string("in"):
            let isArray = if f.count >= 3, case .array = f[2] { true } else { false }
            return f.count >= 3 && (f[1].string == nil || isArray) ? .expression : .legacy
        case .string("!in"), .string("!has"), .string("none"): return .legacy
        case .string("=="), .string("!="), .string(">"), .string(">="), .string("<"), .string("<="):
            let arrays = f.dropFirst().contains { if case .array = $0 { true } else { false } }
            return f.count != 3 || arrays ? .expression : .legacy
        case .string("any"), .string("all"):
            var sawLegacy = false
            for child in f.dropFirst() {
                switch classify(child) {
                case .expression: return .expression
                case .legacy: sawLegacy = true
                case .neutral: break
                }
            }
            return sawLegacy ? .legacy : .neutral
        default: return .expression
        }
    }

    /// The expression a legacy filter stands for.
    private static func convert(_ filter: JSONValue) -> JSONValue {
        guard case .array(let f) = filter, let op = f.first?.string else { return .bool(true) }
        if f.count <= 1 { return .bool(op != "any") }
        func not(_ e: JSONValue) -> JSONValue { .array([.string("!"), e]) }
        let rest = Array(f.dropFirst())
        switch op {
        case "==": return comparison(f[1], f.count > 2 ? f[2] : .null, "==")
        case "!=": return not(comparison(f[1], f.count > 2 ? f[2] : .null, "=="))
        case "<", ">", "<=", ">=": return comparison(f[1], f.count > 2 ? f[2] : .null, op)
        case "any": return .array([.string("any")] + rest.map(convert))
        case "all": return .array([.string("all")] + rest.map(convert))
        case "none": return .array([.string("all")] + rest.map { not(convert($0)) })
        case "in": return contains(f[1], Array(f.dropFirst(2)))
        case "!in": return not(contains(f[1], Array(f.dropFirst(2))))
        case "has": return has(f[1])
        case "!has": return not(has(f[1]))
        default: return .bool(true)
        }
    }

    private static func comparison(_ property: JSONValue, _ value: JSONValue, _ op: String) -> JSONValue {
        switch property.string {
        case "$type": .array([.string("filter-type-\(op)"), value])
        case "$id": .array([.string("filter-id-\(op)"), value])
        default: .array([.string("filter-\(op)"), property, value])
        }
    }

    private static func contains(_ property: JSONValue, _ values: [JSONValue]) -> JSONValue {
        if values.isEmpty { return .bool(false) }
        let list = JSONValue.array([.string("literal"), .array(values)])
        switch property.string {
        case "$type": return .array([.string("filter-type-in"), list])
        case "$id": return .array([.string("filter-id-in"), list])
        default: return .array([.string("filter-in"), property, list])
        }
    }

    private static func has(_ property: JSONValue) -> JSONValue {
        switch property.string {
        case "$type": .bool(true)
        case "$id": .array([.string("filter-has-id")])
        default: .array([.string("filter-has"), property])
        }
    }

    private static func readsGeometry(_ filter: JSONValue) -> Bool {
        guard case .array(let f) = filter else { return false }
        if f.first == .string("within") || f.first == .string("distance") { return true }
        return f.dropFirst().contains(where: readsGeometry)
    }
}
