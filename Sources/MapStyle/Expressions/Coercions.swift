/// The conversions `to-boolean`, `to-number`, `to-string`, `to-color` and the parser's implicit
/// ones to `formatted`, `resolvedImage`, `padding`, `numberArray`, `colorArray`,
/// `variableAnchorOffsetCollection` and `projectionDefinition`: for the multi-argument forms
/// the first argument that converts wins.
enum Coercions {
    static func evaluate(_ type: ExpressionType, _ args: [Expression], _ key: String, _ ctx: EvaluationContext) throws -> ExpressionValue {
        func fail(_ what: String, _ input: ExpressionValue) -> ExpressionEvaluationError {
            let shown = if case .string(let s) = input { s } else { ExpressionJSON.text(input) }
            return ExpressionEvaluationError(message: "Could not parse \(what) from value '\(shown)'", key: key)
        }
        /// The first argument `convert` accepts, else the error for the last one.
        func first(_ what: String, _ convert: (ExpressionValue) -> ExpressionValue?) throws -> ExpressionValue {
            var input = ExpressionValue.null
            for arg in args {
                input = try arg.evaluate(ctx)
                if let value = convert(input) { return value }
            }
            throw fail(what, input)
        }
        switch type {
        case .boolean: return .boolean(try args[0].evaluate(ctx).isTruthy)
        case .number:
            var value = ExpressionValue.null
            for arg in args {
                value = try arg.evaluate(ctx)
                if value == .null { return .number(0) }
                if let n = jsNumber(value), !n.isNaN { return .number(n) }
            }
            throw ExpressionEvaluationError(message: "Could not convert \(ExpressionJSON.text(value)) to number.", key: key)
        case .color:
            var input = ExpressionValue.null
            var message: String?
            for arg in args {
                input = try arg.evaluate(ctx)
                message = nil
                switch input {
                case .color: return input
                case .string(let s): if let c = ctx.parseColor(s) { return .color(c) }
                case .array(let c):
                    if c.count < 3 || c.count > 4 {
                        message = "Invalid rgba value \(ExpressionJSON.text(input)): expected an array containing either three or four numeric values."
                    } else {
                        message = CompoundOperators.validateRGBA(c)
                    }
                    if message == nil {
                        return .color(StyleColor(red: c[0].number! / 255, green: c[1].number! / 255, blue: c[2].number! / 255,
                                                 alpha: c.count > 3 ? c[3].number! : 1))
                    }
                default: break
                }
            }
            throw ExpressionEvaluationError(message: message ?? "Could not parse color from value '\(input.string ?? ExpressionJSON.text(input))'", key: key)
        case .padding: return try first("padding", padding)
        case .numberArray: return try first("numberArray", numberArray)
        case .colorArray: return try first("colorArray") { colorArray($0, ctx) }
        case .variableAnchorOffsetCollection: return try first("variableAnchorOffsetCollection", anchorOffsets)
        case .projectionDefinition:
            let input = try args[0].evaluate(ctx)
            guard ProjectionDefinition.parse(input) != nil else { throw fail("projectionDefinition", input) }
            return input
        case .formatted:
            return .formatted(Formatted(sections: [FormattedSection(text: try args[0].evaluate(ctx).text)]))
        case .resolvedImage:
            let name = try args[0].evaluate(ctx).text
            return name.isEmpty ? .null : .resolvedImage(ResolvedImage(name: name, available: false))
        default:
            return .string(try args[0].evaluate(ctx).text)
        }
    }

    /// JavaScript's `Number(v)`: booleans 0/1, strings by StringToNumber (white space trimmed,
    /// empty → 0, hex `0x`, `Infinity`), NaN for the rest.
    static func jsNumber(_ value: ExpressionValue) -> Double? {
        switch value {
        case .number(let n): return n
        case .boolean(let b): return b ? 1 : 0
        case .null: return 0
        case .string(let s):
            let t = s.trimmingWhitespace()
            if t.isEmpty { return 0 }
            if t.hasPrefix("0x") || t.hasPrefix("0X") { return UInt64(t.dropFirst(2), radix: 16).map(Double.init) ?? .nan }
            if ["Infinity", "+Infinity"].contains(t) { return .infinity }
            if t == "-Infinity" { return -.infinity }
            guard t.allSatisfy({ "0123456789.eE+-".contains($0) }) else { return .nan }
            return Double(t) ?? .nan
        default: return .nan
        }
    }

    /// A number (all four sides) or 1 … 4 numbers in CSS order.
    static func padding(_ value: ExpressionValue) -> ExpressionValue? {
        switch value {
        case .padding: return value
        case .number(let n): return .padding([n, n, n, n])
        case .array(let items):
            let v = items.compactMap(\.number)
            guard (1...4).contains(items.count), v.count == items.count else { return nil }
            switch v.count {
            case 1: return .padding([v[0], v[0], v[0], v[0]])
            case 2: return .padding([v[0], v[1], v[0], v[1]])
            case 3: return .padding([v[0], v[1], v[2], v[1]])
            default: return .padding(v)
            }
        default: return nil
        }
    }

    static func numberArray(_ value: ExpressionValue) -> ExpressionValue? {
        switch value {
        case .numberArray: return value
        case .number(let n): return .numberArray([n])
        case .array(let items):
            let v = items.compactMap(\.number)
            return v.count == items.count ? .numberArray(v) : nil
        default: return nil
        }
    }

    static func colorArray(_ value: ExpressionValue, _ ctx: EvaluationContext) -> ExpressionValue? {
        switch value {
        case .colorArray: return value
        case .string(let s): return ctx.parseColor(s).map { .colorArray([$0]) }
        case .array(let items):
            let colors = items.compactMap { $0.string.flatMap(ctx.parseColor) }
            return colors.count == items.count ? .colorArray(colors) : nil
        default: return nil
        }
    }

    /// The nine anchors of `text-variable-anchor-offset`.
    private static let anchors: Set<String> = ["center", "left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right"]

    static func anchorOffsets(_ value: ExpressionValue) -> ExpressionValue? {
        switch value {
        case .variableAnchorOffsetCollection: return value
        case .array(let items):
            guard !items.isEmpty, items.count % 2 == 0 else { return nil }
            for i in stride(from: 0, to: items.count, by: 2) {
                guard let anchor = items[i].string, anchors.contains(anchor),
                      case .array(let offset) = items[i + 1], offset.count == 2, offset.allSatisfy({ $0.number != nil }) else { return nil }
            }
            return .variableAnchorOffsetCollection(items)
        default: return nil
        }
    }
}
