import GeoCore
import Platform

/// The operators with fixed signatures (spec v8 `expression_name`): each has a result type
/// and one or more overloads, tried in order; the first whose arguments type-check is used.
enum CompoundOperators {
    enum Signature {
        case fixed([ExpressionType])
        case varargs(ExpressionType)

        var text: String {
            switch self {
            case .fixed(let types): "(\(types.map(\.description).joined(separator: ", ")))"
            case .varargs(let t): "(\(t)...)"
            }
        }
    }

    struct Definition {
        var type: ExpressionType
        var overloads: [(Signature, CompoundCall.Evaluate)]
    }

    static func parse(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard case .string(let op) = args[0], let definition = definitions[op] else { return nil }
        let overloads = definition.overloads.filter {
            if case .fixed(let params) = $0.0 { params.count == args.count - 1 } else { true }
        }
        var attempt = ParsingContext.Errors()
        for (signature, evaluate) in overloads {
            attempt = ParsingContext.Errors()
            let signatureContext = ParsingContext(path: context.path, place: context.place, scope: context.scope, errors: attempt, memo: context.memo)
            var parsed: [Expression] = []
            var failed = false
            for i in 1..<max(args.count, 1) {
                let expected: ExpressionType = switch signature {
                case .fixed(let params): params[i - 1]
                case .varargs(let t): t
                }
                guard let p = signatureContext.parse(args[i], i, expected) else { failed = true; break }
                parsed.append(p)
            }
            if failed { continue }
            for (i, arg) in parsed.enumerated() {
                let expected: ExpressionType = switch signature {
                case .fixed(let params): params[i]
                case .varargs(let t): t
                }
                _ = signatureContext.concat(i + 1).failsSubtype(expected, arg.type)
            }
            if attempt.list.isEmpty {
                return .compound(CompoundCall(name: op, type: definition.type, args: parsed, key: context.key, evaluate: evaluate))
            }
        }
        if overloads.count == 1 {
            context.errors.list.append(contentsOf: attempt.list)
        } else {
            let candidates = overloads.isEmpty ? definition.overloads : overloads
            let signatures = candidates.map(\.0.text).joined(separator: " | ")
            var actual: [String] = []
            for i in 1..<max(args.count, 1) {
                guard let p = context.parse(args[i], i, nil) else { return nil }
                actual.append(p.type.description)
            }
            context.error("Expected arguments of type \(signatures), but found (\(actual.joined(separator: ", "))) instead.")
        }
        return nil
    }

    private static func number(_ ctx: EvaluationContext, _ e: Expression) throws -> Double {
        try e.evaluate(ctx).number ?? .nan
    }

    private static func string(_ ctx: EvaluationContext, _ e: Expression) throws -> String {
        try e.evaluate(ctx).string ?? ""
    }

    private static func unary(_ f: @escaping @Sendable (Double) -> Double) -> Definition {
        Definition(type: .number, overloads: [(.fixed([.number]), { ctx, a, _ in .number(f(try number(ctx, a[0]))) })])
    }

    private static func constant(_ value: Double) -> Definition {
        Definition(type: .number, overloads: [(.fixed([]), { _, _, _ in .number(value) })])
    }

    private static func global(_ type: ExpressionType, _ read: @escaping @Sendable (EvaluationContext) -> ExpressionValue) -> Definition {
        Definition(type: type, overloads: [(.fixed([]), { ctx, _, _ in read(ctx) })])
    }

    /// `rgb` / `rgba`: channels 0 … 255, alpha 0 … 1.
    private static let rgba: CompoundCall.Evaluate = { ctx, a, key in
        let c = try a.map { try $0.evaluate(ctx) }
        if let message = validateRGBA(c) { throw ExpressionEvaluationError(message: message, key: key) }
        return .color(StyleColor(red: c[0].number! / 255, green: c[1].number! / 255, blue: c[2].number! / 255, alpha: c.count > 3 ? c[3].number! : 1))
    }

    /// The error text for channels out of range, or nil (also used by `to-color`).
    static func validateRGBA(_ c: [ExpressionValue]) -> String? {
        let rgb = c.prefix(3).map { $0.number }
        let shown = c.map(\.text).joined(separator: ", ")
        guard rgb.count == 3, rgb.allSatisfy({ $0 != nil && $0! >= 0 && $0! <= 255 }) else {
            return "Invalid rgba value [\(shown)]: 'r', 'g', and 'b' must be between 0 and 255."
        }
        if c.count > 3, !(c[3].number.map { $0 >= 0 && $0 <= 1 } ?? false) {
            return "Invalid rgba value [\(shown)]: 'a' must be between 0 and 1."
        }
        return nil
    }

    private static func lookup(_ key: String, _ object: [String: ExpressionValue]) -> ExpressionValue { object[key] ?? .null }

    private static func object(_ ctx: EvaluationContext, _ e: Expression) throws -> [String: ExpressionValue] {
        if case .object(let o) = try e.evaluate(ctx) { return o }
        return [:]
    }

    /// Every fixed-signature operator: the expression language's and legacy filters'.
    static let definitions = core.merging(FilterOperators.definitions) { ours, _ in ours }

    private static let core: [String: Definition] = [
        "error": Definition(type: .error, overloads: [(.fixed([.string]), { ctx, a, key in
            throw ExpressionEvaluationError(message: try string(ctx, a[0]), key: key)
        })]),
        "typeof": Definition(type: .string, overloads: [(.fixed([.value]), { ctx, a, _ in .string(try a[0].evaluate(ctx).type.description) })]),
        "to-rgba": Definition(type: .array(.number, length: 4), overloads: [(.fixed([.color]), { ctx, a, _ in
            guard case .color(let c) = try a[0].evaluate(ctx) else { return .null }
            return .array([c.red * 255, c.green * 255, c.blue * 255, c.alpha].map(ExpressionValue.number))
        })]),
        "rgb": Definition(type: .color, overloads: [(.fixed([.number, .number, .number]), rgba)]),
        "rgba": Definition(type: .color, overloads: [(.fixed([.number, .number, .number, .number]), rgba)]),
        "has": Definition(type: .boolean, overloads: [
            (.fixed([.string]), { ctx, a, _ in .boolean(ctx.properties[try string(ctx, a[0])] != nil) }),
            (.fixed([.string, .object]), { ctx, a, _ in .boolean(try object(ctx, a[1])[try string(ctx, a[0])] != nil) }),
        ]),
        "get": Definition(type: .value, overloads: [
            (.fixed([.string]), { ctx, a, _ in lookup(try string(ctx, a[0]), ctx.properties) }),
            (.fixed([.string, .object]), { ctx, a, _ in lookup(try string(ctx, a[0]), try object(ctx, a[1])) }),
        ]),
        "feature-state": Definition(type: .value, overloads: [(.fixed([.string]), { ctx, a, _ in lookup(try string(ctx, a[0]), ctx.featureState) })]),
        "properties": global(.object) { .object($0.properties) },
        "geometry-type": global(.string) { ctx in ctx.feature?.geometryType.map(ExpressionValue.string) ?? .null },
        "id": global(.value) { $0.feature?.id ?? .null },
        "zoom": global(.number) { .number($0.globals.zoom) },
        "heatmap-density": global(.number) { .number($0.globals.heatmapDensity ?? 0) },
        "elevation": global(.number) { .number($0.globals.elevation ?? 0) },
        "line-progress": global(.number) { .number($0.globals.lineProgress ?? 0) },
        "accumulated": global(.value) { $0.globals.accumulated ?? .null },
        "+": Definition(type: .number, overloads: [(.varargs(.number), { ctx, a, _ in .number(try a.reduce(0) { $0 + (try number(ctx, $1)) }) })]),
        "*": Definition(type: .number, overloads: [(.varargs(.number), { ctx, a, _ in .number(try a.reduce(1) { $0 * (try number(ctx, $1)) }) })]),
        "-": Definition(type: .number, overloads: [
            (.fixed([.number, .number]), { ctx, a, _ in .number(try number(ctx, a[0]) - number(ctx, a[1])) }),
            (.fixed([.number]), { ctx, a, _ in .number(-(try number(ctx, a[0]))) }),
        ]),
        "/": Definition(type: .number, overloads: [(.fixed([.number, .number]), { ctx, a, _ in .number(try number(ctx, a[0]) / number(ctx, a[1])) })]),
        "%": Definition(type: .number, overloads: [(.fixed([.number, .number]), { ctx, a, _ in
            .number(fmod(try number(ctx, a[0]), try number(ctx, a[1])))
        })]),
        "ln2": constant(M_LN2), "pi": constant(.pi), "e": constant(M_E),
        "^": Definition(type: .number, overloads: [(.fixed([.number, .number]), { ctx, a, _ in .number(pow(try number(ctx, a[0]), try number(ctx, a[1]))) })]),
        "sqrt": unary { $0.squareRoot() }, "log10": unary { log($0) / M_LN10 }, "ln": unary { log($0) }, "log2": unary { log($0) / M_LN2 },
        "sin": unary { sin($0) }, "cos": unary { cos($0) }, "tan": unary { tan($0) },
        "asin": unary { asin($0) }, "acos": unary { acos($0) }, "atan": unary { atan($0) },
        "abs": unary { abs($0) }, "floor": unary { floor($0) }, "ceil": unary { ceil($0) },
        // Halves away from zero (MapLibre rounds the magnitude with JavaScript's Math.round).
        "round": unary { $0 < 0 ? -(-$0 + 0.5).rounded(.down) : ($0 + 0.5).rounded(.down) },
        "min": Definition(type: .number, overloads: [(.varargs(.number), { ctx, a, _ in
            .number(try a.reduce(Double.infinity) { acc, e in let v = try number(ctx, e); return v.isNaN || acc.isNaN ? .nan : Swift.min(acc, v) })
        })]),
        "max": Definition(type: .number, overloads: [(.varargs(.number), { ctx, a, _ in
            .number(try a.reduce(-Double.infinity) { acc, e in let v = try number(ctx, e); return v.isNaN || acc.isNaN ? .nan : Swift.max(acc, v) })
        })]),
        "all": Definition(type: .boolean, overloads: [
            (.fixed([.boolean, .boolean]), { ctx, a, _ in .boolean(try a[0].evaluate(ctx).isTruthy && a[1].evaluate(ctx).isTruthy) }),
            (.varargs(.boolean), { ctx, a, _ in .boolean(try a.allSatisfy { try $0.evaluate(ctx).isTruthy }) }),
        ]),
        "any": Definition(type: .boolean, overloads: [
            (.fixed([.boolean, .boolean]), { ctx, a, _ in .boolean(try a[0].evaluate(ctx).isTruthy || a[1].evaluate(ctx).isTruthy) }),
            (.varargs(.boolean), { ctx, a, _ in .boolean(try a.contains { try $0.evaluate(ctx).isTruthy }) }),
        ]),
        "!": Definition(type: .boolean, overloads: [(.fixed([.boolean]), { ctx, a, _ in .boolean(!(try a[0].evaluate(ctx).isTruthy)) })]),
        // Without a renderer's script support table every script counts as supported.
        "is-supported-script": Definition(type: .boolean, overloads: [(.fixed([.string]), { _, _, _ in .boolean(true) })]),
        "upcase": Definition(type: .string, overloads: [(.fixed([.string]), { ctx, a, _ in .string(try string(ctx, a[0]).uppercased()) })]),
        "downcase": Definition(type: .string, overloads: [(.fixed([.string]), { ctx, a, _ in .string(try string(ctx, a[0]).lowercased()) })]),
        "concat": Definition(type: .string, overloads: [(.varargs(.value), { ctx, a, _ in .string(try a.map { try $0.evaluate(ctx).text }.joined()) })]),
        "split": Definition(type: .array(.string, length: nil), overloads: [(.fixed([.string, .string]), { ctx, a, _ in
            .array(JSString.split(try string(ctx, a[0]), by: try string(ctx, a[1])).map(ExpressionValue.string))
        })]),
        "join": Definition(type: .string, overloads: [(.fixed([.array(.string, length: nil), .string]), { ctx, a, _ in
            guard case .array(let items) = try a[0].evaluate(ctx) else { return .string("") }
            return .string(items.map(\.text).joined(separator: try string(ctx, a[1])))
        })]),
        "resolved-locale": Definition(type: .string, overloads: [(.fixed([.collator]), { ctx, a, _ in
            guard case .collator(let c) = try a[0].evaluate(ctx) else { return .null }
            return .string(c.resolvedLocale)
        })]),
    ]
}
