public import GeoCore

/// A value an expression evaluates to (the spec's "Types"): JSON's values plus the style types
/// that have no JSON form of their own.
public enum ExpressionValue: Sendable, Equatable {
    case null
    case boolean(Bool)
    case number(Double)
    case string(String)
    case color(StyleColor)
    case array([ExpressionValue])
    case object([String: ExpressionValue])
    case collator(StyleCollator)
    case formatted(Formatted)
    case resolvedImage(ResolvedImage)
    /// Top, right, bottom, left, in pixels (`padding` properties, spec "Types: padding").
    case padding([Double])
    case numberArray([Double])
    case colorArray([StyleColor])
    /// Alternating anchor names and `[x, y]` offsets in ems (`text-variable-anchor-offset`).
    case variableAnchorOffsetCollection([ExpressionValue])
    case projectionDefinition(ProjectionDefinition)

    /// The value of a JSON document.
    public init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .boolean(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(ExpressionValue.init))
        case .object(let o): self = .object(o.mapValues(ExpressionValue.init))
        }
    }

    /// The run-time type (`typeOf`): an array's item type is its items' common type when they
    /// share one that is not an array, else `value`; its length is the array's.
    public var type: ExpressionType {
        switch self {
        case .null: return .null
        case .boolean: return .boolean
        case .number: return .number
        case .string: return .string
        case .color: return .color
        case .object: return .object
        case .collator: return .collator
        case .formatted: return .formatted
        case .resolvedImage: return .resolvedImage
        case .padding: return .padding
        case .numberArray: return .numberArray
        case .colorArray: return .colorArray
        case .variableAnchorOffsetCollection: return .variableAnchorOffsetCollection
        case .projectionDefinition: return .projectionDefinition
        case .array(let items):
            var item: ExpressionType?
            for value in items {
                let t = value.type
                if item == nil {
                    item = t
                } else if item != t || t.kind == "array" {
                    item = .value
                    break
                }
            }
            return .array(item ?? .value, length: items.count)
        }
    }

    var number: Double? { if case .number(let n) = self { n } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var isNull: Bool { self == .null }

    /// JavaScript's truthiness (`Boolean(v)`): false for null, false, 0, NaN and "".
    var isTruthy: Bool {
        switch self {
        case .null: false
        case .boolean(let b): b
        case .number(let n): n != 0 && !n.isNaN
        case .string(let s): !s.isEmpty
        default: true
        }
    }

    /// JavaScript's `===` as the spec's `==` uses it: equal primitives; never two composite values.
    func strictlyEquals(_ other: ExpressionValue) -> Bool {
        switch (self, other) {
        case (.null, .null): true
        case (.boolean(let a), .boolean(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a.utf16.elementsEqual(b.utf16)
        default: false
        }
    }

    /// JavaScript's `String(v)` of a primitive, as `in` and `index-of` search a string for it.
    var jsString: String { self == .null ? "null" : text }

    /// The spec's `to-string` of a value: "" for null, JavaScript's number text, JSON for
    /// arrays and objects, `rgba(r,g,b,a)` for colours.
    var text: String {
        switch self {
        case .null: return ""
        case .boolean(let b): return b ? "true" : "false"
        case .number(let n): return JSNumber.string(n)
        case .string(let s): return s
        case .color(let c): return c.cssText
        case .formatted(let f): return f.sections.map(\.text).joined()
        case .resolvedImage(let image): return image.name
        case .projectionDefinition(let p): return p.text
        case .padding(let v), .numberArray(let v): return ExpressionJSON.text(.array(v.map(ExpressionValue.number)))
        case .colorArray(let colors): return ExpressionJSON.text(.array(colors.map(ExpressionValue.color)))
        case .variableAnchorOffsetCollection(let v): return ExpressionJSON.text(.array(v))
        case .array, .object, .collator: return ExpressionJSON.text(self)
        }
    }
}

/// A text section of a `formatted` value (spec: `format`).
public struct FormattedSection: Sendable, Equatable {
    public var text: String
    public var image: ResolvedImage?
    /// Font scale factor, 1 when nil.
    public var scale: Double?
    /// Comma-joined font stack.
    public var fontStack: String?
    public var textColor: StyleColor?
    /// `bottom`, `center` or `top`.
    public var verticalAlign: String?
}

/// Rich text: the value of `format` and of `formatted` properties such as `text-field`.
public struct Formatted: Sendable, Equatable {
    public var sections: [FormattedSection]
}

/// An image name and whether the style has it (spec: `image`).
public struct ResolvedImage: Sendable, Equatable {
    public var name: String
    public var available: Bool
}

/// A projection or a transition between two (spec: `projection.type`).
public struct ProjectionDefinition: Sendable, Equatable {
    public var from: String, to: String
    /// 0 … 1 from `from` to `to`.
    public var transition: Double

    var text: String {
        from == to && transition == 1 ? from
            : ExpressionJSON.text(.array([.string(from), .string(to), .number(transition)]))
    }

    /// A name, `[from, to, t]` or `{from, to, transition}`; nil for anything else.
    static func parse(_ value: ExpressionValue) -> ProjectionDefinition? {
        switch value {
        case .projectionDefinition(let p): return p
        case .string(let s): return ProjectionDefinition(from: s, to: s, transition: 1)
        case .array(let a):
            guard a.count == 3, let f = a[0].string, let t = a[1].string, let x = a[2].number else { return nil }
            return ProjectionDefinition(from: f, to: t, transition: x)
        case .object(let o):
            guard let f = o["from"]?.string, let t = o["to"]?.string, let x = o["transition"]?.number else { return nil }
            return ProjectionDefinition(from: f, to: t, transition: x)
        default: return nil
        }
    }
}
