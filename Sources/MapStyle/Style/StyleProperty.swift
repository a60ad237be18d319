import GeoCore

/// A problem in a style document, reported as maplibre's validator reports it: the JSON path of
/// the offending value (`layers[2].paint.fill-color`, `sources.osm.type`) and a message.
public struct StyleDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    /// What the decoder did instead: the value's default was used, or the layer or source
    /// was left out; nil when nothing was left out (the message only informs).
    public var recovery: String?
    public init(path: String, message: String, recovery: String? = nil) {
        self.path = path
        self.message = message
        self.recovery = recovery
    }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// One paint or layout property of a layer: its specification and its value, a constant or an
/// expression (legacy functions become expressions), evaluated per zoom and feature.
public struct StyleProperty: Sendable {
    public enum Value: Sendable {
        case constant(ExpressionValue)
        case expression(StyleExpression)
    }

    public let specification: PropertySpecification
    public let value: Value

    /// The property at its specification's default (`.null` when the spec gives none, as for
    /// `fill-pattern`).
    public init(default specification: PropertySpecification) {
        self.specification = specification
        value = .constant(specification.defaultValue.flatMap { Self.constant($0, specification) } ?? .null)
    }

    public init(specification: PropertySpecification, value: Value) {
        self.specification = specification
        self.value = value
    }

    /// Whether the value is the same for every zoom and feature.
    public var isConstant: Bool {
        switch value {
        case .constant: true
        case .expression(let e): e.kind == .constant
        }
    }

    /// Whether the value depends on the feature.
    public var isFeatureDependent: Bool {
        if case .expression(let e) = value { e.kind == .source || e.kind == .composite } else { false }
    }

    /// The feature properties the value reads (none for a constant); nil when it reads more
    /// of the feature (``StyleExpression/propertyNames``).
    public var propertyNames: [String]? {
        switch value {
        case .constant: []
        case .expression(let e): e.propertyNames
        }
    }

    /// The value at `zoom` for `feature`; an evaluation error or a value of the wrong type gives
    /// the default (the spec's fallback); numbers are limited to the property's range.
    public func evaluate(zoom: Double, feature: ExpressionFeature? = nil, tile: CanonicalTile? = nil) -> ExpressionValue {
        switch value {
        case .constant(let c): return c
        case .expression(let e):
            var globals = ExpressionGlobals()
            globals.zoom = zoom
            guard let v = try? e.evaluate(globals: globals, feature: feature, tile: tile), v != .null else {
                return StyleProperty(default: specification).evaluate(zoom: zoom)
            }
            if case .number(let n) = v {
                return .number(min(max(n, specification.minimum ?? -.infinity), specification.maximum ?? .infinity))
            }
            return v
        }
    }

    /// The value of a constant in the property's terms (a colour string as a colour), nil when
    /// the constant does not fit (what ``StyleValidation`` reports).
    static func constant(_ json: JSONValue, _ spec: PropertySpecification) -> ExpressionValue? {
        switch (spec.type, json) {
        case ("color", .string(let s)): return StyleColor(css: s).map(ExpressionValue.color)
        case ("color", _): return nil
        case ("number", .number(let n)): return .number(n)
        case ("boolean", .bool(let b)): return .boolean(b)
        case ("enum", .string(let s)): return spec.enumValues.contains(s) ? .string(s) : nil
        case ("string", .string(let s)): return .string(s)
        case ("resolvedImage", .string(let s)): return .string(s)
        case ("formatted", .string(let s)): return .string(s)
        case ("array", .array(let items)):
            if let n = spec.length, items.count != n { return nil }
            let itemSpec = PropertySpecification(json: .object(["type": .string(spec.value ?? "")]))
            var out: [ExpressionValue] = []
            for item in items {
                if spec.value == nil || spec.value == "" { out.append(ExpressionValue(item)); continue }
                guard let v = constant(item, itemSpec) else { return nil }
                out.append(v)
            }
            return .array(out)
        case ("padding", .number(let n)): return .padding([n, n, n, n])
        case ("padding", .array(let a)):
            let n = a.compactMap { if case .number(let v) = $0 { v } else { nil } }
            guard n.count == a.count, (1...4).contains(n.count) else { return nil }
            let full = n.count == 1 ? [n[0], n[0], n[0], n[0]] : n.count == 2 ? [n[0], n[1], n[0], n[1]]
                : n.count == 3 ? [n[0], n[1], n[2], n[1]] : n
            return .padding(full)
        case ("string", _), ("number", _), ("boolean", _), ("enum", _), ("array", _), ("padding", _): return nil
        default: return ExpressionValue(json)
        }
    }
}

extension ExpressionValue {
    /// The number, or nil.
    public var numberValue: Double? { if case .number(let n) = self { n } else { nil } }
    /// The string, or nil.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The colour, or nil.
    public var colorValue: StyleColor? { if case .color(let c) = self { c } else { nil } }
    /// The boolean, or nil.
    public var booleanValue: Bool? { if case .boolean(let b) = self { b } else { nil } }
    /// The numbers of an array (or of a number array), nil when any item is not a number.
    public var numbersValue: [Double]? {
        switch self {
        case .numberArray(let n), .padding(let n): return n
        case .array(let items):
            let n = items.compactMap(\.numberValue)
            return n.count == items.count ? n : nil
        default: return nil
        }
    }
}
