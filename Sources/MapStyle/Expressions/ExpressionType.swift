/// The type of an expression or value in the MapLibre Style Specification's expression language
/// (v8, "Types"): what the parser checks every argument against before anything is evaluated.
public indirect enum ExpressionType: Hashable, Sendable, CustomStringConvertible {
    case null, number, string, boolean, color, object, value, error
    case collator, formatted, resolvedImage, padding, numberArray, colorArray
    case variableAnchorOffsetCollection, projectionDefinition
    /// `array<item, N>`; `length` nil for any length.
    case array(ExpressionType, length: Int?)

    /// `array<value>` of any length, which `["array", x]` asserts.
    public static let anyArray = ExpressionType.array(.value, length: nil)

    /// The type's kind: its name without item type or length (`array` for every array).
    public var kind: String {
        switch self {
        case .null: "null"
        case .number: "number"
        case .string: "string"
        case .boolean: "boolean"
        case .color: "color"
        case .object: "object"
        case .value: "value"
        case .error: "error"
        case .collator: "collator"
        case .formatted: "formatted"
        case .resolvedImage: "resolvedImage"
        case .padding: "padding"
        case .numberArray: "numberArray"
        case .colorArray: "colorArray"
        case .variableAnchorOffsetCollection: "variableAnchorOffsetCollection"
        case .projectionDefinition: "projectionDefinition"
        case .array: "array"
        }
    }

    /// The spec's spelling: `number`, `array<number, 2>`, `array<string>`, `array` (of values).
    public var description: String {
        guard case .array(let item, let length) = self else { return kind }
        if let length { return "array<\(item), \(length)>" }
        return item == .value ? "array" : "array<\(item)>"
    }

    /// The types a `value` may hold at run time.
    private static let valueMembers: [ExpressionType] = [
        .null, .number, .string, .boolean, .color, .projectionDefinition, .formatted, .object, .anyArray,
        .padding, .numberArray, .colorArray, .resolvedImage, .variableAnchorOffsetCollection,
    ]

    /// Whether a value of type `t` may stand where `self` is expected; `error` stands anywhere.
    public func accepts(_ t: ExpressionType) -> Bool {
        if t == .error { return true }
        if kind == t.kind, kind != "array" { return true }
        switch self {
        case .array(let item, let length):
            guard case .array(let tItem, let tLength) = t else { return false }
            let itemFits = (tLength == 0 && tItem == .value) || item.accepts(tItem)
            return itemFits && (length == nil || length == tLength)
        case .value:
            return Self.valueMembers.contains { $0.accepts(t) }
        default:
            return kind == t.kind
        }
    }

    /// The parser's message when `t` does not fit `self`, or nil when it does.
    func mismatch(_ t: ExpressionType) -> String? {
        accepts(t) ? nil : "Expected \(self) but found \(t) instead."
    }
}
