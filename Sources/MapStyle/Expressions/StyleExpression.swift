public import GeoCore

/// What a style property allows of its value (v8.json's property entries): its type, whether it
/// may depend on the feature, and which of `zoom` / `feature` its expressions may read.
public struct PropertySpecification: Sendable {
    /// `number`, `string`, `color`, `enum`, `array`, `formatted`, `padding`, ….
    public var type: String
    /// Item type of an `array` property.
    public var value: String?
    /// Length of an `array` property.
    public var length: Int?
    /// `data-driven`, `data-constant`, `constant`, `cross-faded`, `cross-faded-data-driven`.
    public var propertyType: String
    public var interpolated: Bool
    /// The expression parameters allowed: `zoom`, `feature`, `feature-state`, ….
    public var parameters: [String]
    public var defaultValue: JSONValue?
    /// Whether legacy `{token}` strings are expanded (`text-field`, `icon-image`).
    public var tokens: Bool
    /// The values of an `enum`.
    public var enumValues: [String]
    /// The range of a `number` (or of an array's numbers), when the spec bounds it.
    public var minimum: Double?, maximum: Double?

    /// A specification from its v8.json form; absent members take the conformance harness's
    /// defaults: data-driven, interpolated, parameters zoom and feature.
    public init(json: JSONValue?) {
        let object: [String: JSONValue] = if case .object(let o)? = json { o } else { [:] }
        type = object["type"]?.string ?? ""
        value = object["value"]?.string
        length = if case .number(let n)? = object["length"] { Int(exactly: n) } else { nil }
        propertyType = object["property-type"]?.string ?? "data-driven"
        let expression = object["expression"]
        interpolated = expression == nil ? true : expression?.member("interpolated") == .bool(true)
        parameters = expression == nil ? ["zoom", "feature"] : (expression?.member("parameters")?.items.compactMap(\.string) ?? [])
        defaultValue = object["default"]
        tokens = object["tokens"] == .bool(true)
        enumValues = if case .object(let values)? = object["values"] { values.keys.sorted() } else { object["values"]?.items.compactMap(\.string) ?? [] }
        minimum = if case .number(let n)? = object["minimum"] { n } else { nil }
        maximum = if case .number(let n)? = object["maximum"] { n } else { nil }
    }

    /// The type an expression for this property must have.
    var expectedType: ExpressionType? {
        let types: [String: ExpressionType] = [
            "color": .color, "string": .string, "number": .number, "enum": .string, "boolean": .boolean, "formatted": .formatted,
            "padding": .padding, "numberArray": .numberArray, "colorArray": .colorArray, "projectionDefinition": .projectionDefinition,
            "resolvedImage": .resolvedImage, "variableAnchorOffsetCollection": .variableAnchorOffsetCollection,
        ]
        if type == "array" { return .array(value.flatMap { types[$0] } ?? .value, length: length) }
        return types[type]
    }
}

/// A property value's expression, parsed and checked against its property (MapLibre's
/// `createPropertyExpression`): what it depends on decides how a renderer evaluates it.
public struct StyleExpression: Sendable {
    /// `constant`, `source` (feature), `camera` (zoom) or `composite` (both).
    public enum Kind: String, Sendable { case constant, source, camera, composite }

    let expression: Expression
    public let kind: Kind
    /// The style's global state the expression reads with `global-state`.
    public let globalState: [String: ExpressionValue]
    /// The feature properties the expression reads, sorted; nil when it reads more of the
    /// feature than properties named by literals (its id, type, geometry or state, …): at one
    /// zoom, features that agree in these properties get the same value.
    public let propertyNames: [String]?

    /// The expression's type as the spec writes it (`number`, `array<number, 2>`, `color`).
    public var type: ExpressionType { expression.type }

    /// Parses `json` (an expression, or a legacy function object) for a property.
    /// - Throws: the parse errors, each with its key path (`[2]`, `[1][0]`).
    public init(json: JSONValue, property: PropertySpecification, globalState: [String: ExpressionValue] = [:]) throws(ExpressionParseFailure) {
        try self.init(json: json, property: property, globalState: globalState, asProperty: true)
    }

    /// - Parameter asProperty: whether the property's limits apply (feature and zoom
    ///   dependence, zoom only as a top-level curve's input); a layer filter is parsed without.
    init(json: JSONValue, property: PropertySpecification, globalState: [String: ExpressionValue], asProperty: Bool) throws(ExpressionParseFailure) {
        var input = json
        if case .object = json { input = LegacyFunction.convert(json, property) }
        let context = ParsingContext(expectedType: property.expectedType)
        guard let parsed = context.parse(input, annotation: property.type == "string" ? .coerce : nil) else {
            throw ExpressionParseFailure(errors: context.errors.list)
        }
        func fail(_ message: String) -> ExpressionParseFailure { ExpressionParseFailure(errors: [ExpressionParsingError(key: "", message: message)]) }
        let featureConstant = parsed.isFeatureConstant
        let zoomConstant = parsed.isGlobalConstant(["zoom"])
        guard asProperty else {
            expression = parsed
            kind = zoomConstant ? (featureConstant ? .constant : .source) : (featureConstant ? .camera : .composite)
            self.globalState = globalState
            propertyNames = parsed.readPropertyNames?.sorted()
            return
        }
        if !featureConstant, !["data-driven", "cross-faded-data-driven"].contains(property.propertyType) {
            throw fail("data expressions not supported")
        }
        if !zoomConstant, !property.parameters.contains("zoom") { throw fail("zoom expressions not supported") }
        let curve: CurveExpression?
        switch Self.zoomCurve(parsed) {
        case .error(let message): throw fail(message)
        case .curve(let c): curve = c
        case .none: curve = nil
        }
        if curve == nil, !zoomConstant {
            throw fail(#""zoom" expression may only be used as input to a top-level "step" or "interpolate" expression."#)
        }
        if let curve, curve.op != .step, !property.interpolated { throw fail(#""interpolate" expressions cannot be used with this property"#) }
        expression = parsed
        kind = curve == nil ? (featureConstant ? .constant : .source) : (featureConstant ? .camera : .composite)
        self.globalState = globalState
        propertyNames = parsed.readPropertyNames?.sorted()
    }

    private enum ZoomCurve { case none, curve(CurveExpression), error(String) }

    /// The one `step` or `interpolate` whose input is `zoom`, found where MapLibre allows it:
    /// at the top, as the result of a `let`, or as an argument of a top-level `coalesce`.
    private static func zoomCurve(_ e: Expression) -> ZoomCurve {
        // Each child once: a `let`'s result is also its last child, and nested lets would
        // otherwise be searched 2^depth times.
        let found = e.children.map(zoomCurve)
        var result = ZoomCurve.none
        switch e {
        case .binding: result = found.last ?? .none
        case .coalesce: result = found.first { if case .none = $0 { false } else { true } } ?? .none
        case .curve(let c):
            if case .compound(let input) = c.input, input.name == "zoom" { result = .curve(c) }
        default: break
        }
        if case .error = result { return result }
        for child in found {
            switch (child, result) {
            case (.error(let m), _): result = .error(m)
            case (.curve, .none):
                result = .error(#""zoom" expression may only be used as input to a top-level "step" or "interpolate" expression."#)
            case (.curve(let inner), .curve(let current)) where inner.key != current.key:
                result = .error(#"Only one zoom-based "step" or "interpolate" subexpression may be used in an expression."#)
            default: break
            }
        }
        return result
    }

    /// The value for a feature, without falling back to a default on errors.
    /// - Throws: ``ExpressionEvaluationError`` naming the failing sub-expression.
    public func evaluate(globals: ExpressionGlobals, feature: ExpressionFeature? = nil, featureState: [String: ExpressionValue] = [:],
                         tile: CanonicalTile? = nil, availableImages: [String]? = nil) throws(ExpressionEvaluationError) -> ExpressionValue {
        let ctx = EvaluationContext()
        ctx.globals = globals
        ctx.globals.globalState = globalState
        ctx.feature = feature
        ctx.featureState = featureState
        ctx.canonical = tile
        ctx.availableImages = availableImages
        do {
            return try expression.evaluate(ctx)
        } catch let error as ExpressionEvaluationError {
            throw error
        } catch {
            throw ExpressionEvaluationError(message: "\(error)", key: "")
        }
    }
}

/// The errors of an expression that did not parse.
public struct ExpressionParseFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ExpressionParsingError]
    public init(errors: [ExpressionParsingError]) { self.errors = errors }
    public var description: String { errors.map(\.description).joined(separator: "; ") }
}
