import Platform

extension Expression {
    /// The expression's value for the context's feature and globals.
    /// - Throws: ``ExpressionEvaluationError`` naming the failing sub-expression's key.
    func evaluate(_ ctx: EvaluationContext) throws -> ExpressionValue {
        switch self {
        case .literal(let value, _): return value
        case .compound(let call): return try call.evaluate(ctx, call.args, call.key)
        case .assertion(let type, let args, let key):
            for (i, arg) in args.enumerated() {
                let value = try arg.evaluate(ctx)
                if type.accepts(value.type) { return value }
                if i == args.count - 1 {
                    throw ExpressionEvaluationError(message: "Expected value to be of type \(type), but found \(value.type) instead.", key: key)
                }
            }
            return .null
        case .coercion(let type, let args, let key): return try Coercions.evaluate(type, args, key, ctx)
        case .binding(let bindings, let result):
            // Bindings are evaluated in order as the `let` is entered, so that a `var` finds its
            // value ready instead of recursing through the chain of lets above it. A binding that
            // fails is left to fail where a `var` reads it, as when evaluated lazily.
            for binding in bindings where ctx.variables[binding.key] == nil {
                if let value = try? binding.value.evaluate(ctx) { ctx.variables[binding.key] = value }
            }
            return try result.evaluate(ctx)
        case .variable(_, let bound, let binding):
            // A binding is evaluated once per evaluation however many `var`s read it: lets that
            // double their uses level by level would otherwise take 2^depth evaluations.
            if let value = ctx.variables[binding] { return value }
            let value = try bound.evaluate(ctx)
            ctx.variables[binding] = value
            return value
        case .at(_, let indexExpression, let input, let key):
            let index = try indexExpression.evaluate(ctx).number ?? .nan
            guard case .array(let items) = try input.evaluate(ctx) else { return .null }
            if index < 0 { throw ExpressionEvaluationError(message: "Array index out of bounds: \(JSNumber.string(index)) < 0.", key: key) }
            if index >= Double(items.count) {
                throw ExpressionEvaluationError(message: "Array index out of bounds: \(JSNumber.string(index)) > \(items.count - 1).", key: key)
            }
            guard index == index.rounded(.down) else {
                throw ExpressionEvaluationError(message: "Array index must be an integer, but found \(JSNumber.string(index)) instead.", key: key)
            }
            return items[Int(index)]
        case .contains(let needleExpression, let haystackExpression, let key):
            let needle = try needleExpression.evaluate(ctx)
            let haystack = try haystackExpression.evaluate(ctx)
            if !haystack.isTruthy { return .boolean(false) }
            try Self.checkNeedle(needle, key)
            switch haystack {
            case .string(let s):
                return .boolean(JSString.indexOf(s, needle.jsString, from: 0) != nil)
            case .array(let items): return .boolean(items.contains { $0.strictlyEquals(needle) })
            default:
                throw ExpressionEvaluationError(message: "Expected second argument to be of type array or string, but found \(haystack.type) instead.", key: key)
            }
        case .indexOf(let needleExpression, let haystackExpression, let fromExpression, let key):
            let needle = try needleExpression.evaluate(ctx)
            let haystack = try haystackExpression.evaluate(ctx)
            try Self.checkNeedle(needle, key)
            let from = try fromExpression?.evaluate(ctx).number ?? 0
            switch haystack {
            case .string(let s):
                return .number(JSString.indexOf(s, needle.jsString, from: from).map(Double.init) ?? -1)
            case .array(let items):
                let start = JSString.relativeIndex(from, count: items.count, defaultValue: 0)
                return .number(Double(items[start...].firstIndex { $0.strictlyEquals(needle) } ?? -1))
            default:
                throw ExpressionEvaluationError(message: "Expected second argument to be of type array or string, but found \(haystack.type) instead.", key: key)
            }
        case .slice(_, let inputExpression, let beginExpression, let endExpression, let key):
            let input = try inputExpression.evaluate(ctx)
            let begin = try beginExpression.evaluate(ctx).number ?? 0
            let end = try endExpression?.evaluate(ctx).number
            switch input {
            case .string(let s):
                let scalars = Array(s.unicodeScalars)
                let range = JSString.sliceRange(begin, end, count: scalars.count)
                return .string(String(String.UnicodeScalarView(scalars[range])))
            case .array(let items): return .array(Array(items[JSString.sliceRange(begin, end, count: items.count)]))
            default:
                throw ExpressionEvaluationError(message: "Expected first argument to be of type array or string, but found \(input.type) instead.", key: key)
            }
        case .length(let inputExpression, let key):
            switch try inputExpression.evaluate(ctx) {
            case .string(let s): return .number(Double(s.unicodeScalars.count))
            case .array(let items): return .number(Double(items.count))
            case let other:
                throw ExpressionEvaluationError(message: "Expected value to be of type string or array, but found \(other.type) instead.", key: key)
            }
        case .conditional(_, let branches, let otherwise):
            for branch in branches {
                if try branch.test.evaluate(ctx).isTruthy { return try branch.value.evaluate(ctx) }
            }
            return try otherwise.evaluate(ctx)
        case .coalesce(_, let args):
            var requestedImage: ExpressionValue?
            for (i, arg) in args.enumerated() {
                var result = try arg.evaluate(ctx)
                if case .resolvedImage(let image) = result, !image.available {
                    requestedImage = requestedImage ?? .string(image.name)
                    result = i == args.count - 1 ? requestedImage! : .null
                }
                if result != .null { return result }
            }
            return .null
        case .match(let m):
            let input = try m.input.evaluate(ctx)
            let label: MatchLabel? = switch input {
            case .number(let n) where m.inputType == .number: .number(n)
            case .string(let s) where m.inputType == .string: .string(s)
            default: nil
            }
            let output = label.flatMap { m.cases[$0] }.map { m.outputs[$0] } ?? m.otherwise
            return try output.evaluate(ctx)
        case .curve(let c): return try c.evaluate(ctx)
        case .comparison(let c): return .boolean(try c.evaluate(ctx))
        case .format(let sections): return .formatted(Formatted(sections: try sections.map { try $0.evaluate(ctx) }))
        case .image(let name):
            let text = try name.evaluate(ctx).text
            guard !text.isEmpty else { return .null }
            return .resolvedImage(ResolvedImage(name: text, available: ctx.availableImages?.contains(text) ?? false))
        case .numberFormat(let n): return .string(try n.evaluate(ctx))
        case .collator(let c, let d, let locale):
            return .collator(StyleCollator(caseSensitive: try c.evaluate(ctx).isTruthy, diacriticSensitive: try d.evaluate(ctx).isTruthy,
                                           locale: try locale?.evaluate(ctx).string))
        case .globalState(let name): return ctx.globals.globalState[name] ?? .null
        case .within(let filter): return .boolean(filter.within(ctx))
        case .distance(let filter): return .number(filter.distance(ctx))
        case .semiliteral(_, let items): return .array(try items.map { try $0.evaluate(ctx) })
        }
    }

    private static func checkNeedle(_ needle: ExpressionValue, _ key: String) throws {
        switch needle {
        case .boolean, .string, .number, .null: return
        default:
            throw ExpressionEvaluationError(message: "Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead.", key: key)
        }
    }
}

extension FormatSectionExpression {
    func evaluate(_ ctx: EvaluationContext) throws -> FormattedSection {
        let value = try content.evaluate(ctx)
        let align = try verticalAlign?.evaluate(ctx).string
        if case .resolvedImage(let image) = value {
            return FormattedSection(text: "", image: image, verticalAlign: align)
        }
        var fontStack: String?
        if case .array(let fonts)? = try font?.evaluate(ctx) { fontStack = fonts.map(\.text).joined(separator: ",") }
        var color: StyleColor?
        if case .color(let c)? = try textColor?.evaluate(ctx) { color = c }
        return FormattedSection(text: value.text, scale: try scale?.evaluate(ctx).number, fontStack: fontStack,
                                textColor: color, verticalAlign: align)
    }
}

extension ComparisonExpression {
    func evaluate(_ ctx: EvaluationContext) throws -> Bool {
        let a = try lhs.evaluate(ctx), b = try rhs.evaluate(ctx)
        let ordered = op != "==" && op != "!="
        if ordered, hasUntypedArgument {
            let ta = a.type.kind, tb = b.type.kind
            guard ta == tb, ta == "string" || ta == "number" else {
                throw ExpressionEvaluationError(message: "Expected arguments for \"\(op)\" to be (string, string) or (number, number), but found (\(ta), \(tb)) instead.", key: key)
            }
        }
        if let collatorExpression = collator, case .string(let x) = a, case .string(let y) = b,
           case .collator(let c) = try collatorExpression.evaluate(ctx) {
            let order = c.compare(x, y)
            switch op {
            case "==": return order == 0
            case "!=": return order != 0
            case "<": return order < 0
            case ">": return order > 0
            case "<=": return order <= 0
            default: return order >= 0
            }
        }
        switch op {
        case "==": return a.strictlyEquals(b)
        case "!=": return !a.strictlyEquals(b)
        default: break
        }
        // JavaScript's relational comparison of two numbers or two strings (UTF-16 order).
        let order: Int?
        switch (a, b) {
        case (.number(let x), .number(let y)): order = x.isNaN || y.isNaN ? nil : (x < y ? -1 : x > y ? 1 : 0)
        case (.string(let x), .string(let y)): order = x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : (x.utf16.elementsEqual(y.utf16) ? 0 : 1)
        default: order = nil
        }
        guard let order else { return false }
        switch op {
        case "<": return order < 0
        case ">": return order > 0
        case "<=": return order <= 0
        default: return order >= 0
        }
    }
}
