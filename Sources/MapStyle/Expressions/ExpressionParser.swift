import GeoCore

/// The parsers of the expression operators (MapLibre Style Specification v8, "Expressions"):
/// each checks its arguments' count, shapes and types as MapLibre does and reports problems
/// with their key path. Fixed-signature operators are in ``CompoundOperators``.
enum ExpressionParser {
    typealias Parse = @Sendable ([JSONValue], ParsingContext) -> Expression?

    static let operators: [String: Parse] = {
        var table: [String: Parse] = [
            "literal": literal, "semiliteral": semiliteral,
            "array": assertion, "boolean": assertion, "number": assertion, "string": assertion, "object": assertion,
            "to-boolean": coercion, "to-color": coercion, "to-number": coercion, "to-string": coercion,
            "let": binding, "var": variable, "at": at, "in": contains, "index-of": indexOf, "slice": slice, "length": length,
            "case": conditional, "coalesce": coalesce, "match": match,
            "step": CurveParser.step, "interpolate": CurveParser.interpolate,
            "interpolate-hcl": CurveParser.interpolate, "interpolate-lab": CurveParser.interpolate,
            "format": TextParsers.format, "image": TextParsers.image, "number-format": TextParsers.numberFormat,
            "collator": TextParsers.collator, "global-state": globalState,
            "within": GeometryFilter.parseWithin, "distance": GeometryFilter.parseDistance,
        ]
        for op in ["==", "!=", "<", ">", "<=", ">="] { table[op] = comparison }
        for name in CompoundOperators.definitions.keys { table[name] = CompoundOperators.parse }
        return table
    }()

    static func literal(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else {
            return context.error("'literal' expression requires exactly one argument, but found \(args.count - 1) instead.")
        }
        let value = ExpressionValue(args[1])
        var type = value.type
        // An empty array literal takes the expected array type.
        if case .array(_, length: 0) = type, case .array(_, let n)? = context.expectedType, n == nil || n == 0 {
            type = context.expectedType!
        }
        return .literal(value, type)
    }

    static func semiliteral(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else {
            return context.error("'semiliteral' expression requires exactly one argument, but found \(args.count - 1) instead.")
        }
        guard case .array(let items) = args[1] else { return .literal(ExpressionValue(args[1]), ExpressionValue(args[1]).type) }
        var parsed: [Expression] = []
        for (i, item) in items.enumerated() {
            guard let p = context.semiliteralItem(i).parse(item) else { return nil }
            parsed.append(p)
        }
        var item: ExpressionType?
        for p in parsed {
            if item == nil { item = p.type } else if item != p.type || p.type.kind == "array" { item = .value; break }
        }
        return .semiliteral(.array(item ?? .value, length: parsed.count), parsed)
    }

    static func assertion(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 2 else { return context.error("Expected at least one argument.") }
        let types: [String: ExpressionType] = ["string": .string, "number": .number, "boolean": .boolean, "object": .object]
        var i = 1
        let type: ExpressionType
        if args[0] == .string("array") {
            var item = ExpressionType.value
            if args.count > 2 {
                guard case .string(let name) = args[1], let t = types[name], name != "object" else {
                    return context.error(#"The item type argument of "array" must be one of string, number, boolean"#, 1)
                }
                item = t
                i += 1
            }
            var length: Int?
            if args.count > 3 {
                switch args[2] {
                case .null: break
                case .number(let n) where n >= 0 && n == n.rounded(.down) && n < 1e9: length = Int(n)
                default: return context.error(#"The length argument to "array" must be a positive integer literal"#, 2)
                }
                i += 1
            }
            type = .array(item, length: length)
        } else {
            guard case .string(let name) = args[0], let t = types[name] else { return nil }
            type = t
        }
        var parsed: [Expression] = []
        for j in i..<args.count {
            guard let p = context.parse(args[j], j, .value) else { return nil }
            parsed.append(p)
        }
        return .assertion(type, parsed, key: context.key)
    }

    static func coercion(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 2 else { return context.error("Expected at least one argument.") }
        let types: [String: ExpressionType] = ["to-boolean": .boolean, "to-color": .color, "to-number": .number, "to-string": .string]
        guard case .string(let name) = args[0], let type = types[name] else { return nil }
        if (name == "to-boolean" || name == "to-string"), args.count != 2 { return context.error("Expected one argument.") }
        var parsed: [Expression] = []
        for j in 1..<args.count {
            guard let p = context.parse(args[j], j, .value) else { return nil }
            parsed.append(p)
        }
        return .coercion(type, parsed, key: context.key)
    }

    static func binding(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 4 else { return context.error("Expected at least 3 arguments, but found \(args.count - 1) instead.") }
        var bindings: [ParsingContext.Binding] = []
        var i = 1
        while i < args.count - 1 {
            guard case .string(let name) = args[i] else {
                return context.error("Expected string, but found \(args[i].jsTypeName) instead.", i)
            }
            guard name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
                return context.error("Variable names must contain only alphanumeric characters or '_'.", i)
            }
            guard let value = context.parse(args[i + 1], i + 1, nil) else { return nil }
            bindings.append(ParsingContext.Binding(name: name, value: value, key: context.concat(i + 1).key))
            i += 2
        }
        guard let result = context.parse(args[args.count - 1], args.count - 1, context.expectedType, bindings: bindings) else { return nil }
        return .binding(bindings.map { ($0.name, $0.value, $0.key) }, result: result)
    }

    static func variable(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2, case .string(let name) = args[1] else {
            return context.error("'var' expression requires exactly one string literal argument.")
        }
        guard let bound = context.lookup(name) else {
            return context.error("Unknown variable \"\(name)\". Make sure \"\(name)\" has been bound in an enclosing \"let\" expression before using it.", 1)
        }
        return .variable(name: name, bound: bound.value, binding: bound.key)
    }

    static func at(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 3 else { return context.error("Expected 2 arguments, but found \(args.count - 1) instead.") }
        let index = context.parse(args[1], 1, .number)
        let input = context.parse(args[2], 2, .array(context.expectedType ?? .value, length: nil))
        guard let index, let input, case .array(let item, _) = input.type else { return nil }
        return .at(item, index: index, input: input, key: context.key)
    }

    /// The needle types `in` and `index-of` accept.
    private static func needleFits(_ t: ExpressionType) -> Bool { [.boolean, .string, .number, .null, .value].contains(t) }

    static func contains(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 3 else { return context.error("Expected 2 arguments, but found \(args.count - 1) instead.") }
        let needle = context.parse(args[1], 1, .value)
        let haystack = context.parse(args[2], 2, .value)
        guard let needle, let haystack else { return nil }
        guard needleFits(needle.type) else {
            return context.error("Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead")
        }
        return .contains(needle: needle, haystack: haystack, key: context.key)
    }

    static func indexOf(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 3 || args.count == 4 else { return context.error("Expected 2 or 3 arguments, but found \(args.count - 1) instead.") }
        let needle = context.parse(args[1], 1, .value)
        let haystack = context.parse(args[2], 2, .value)
        guard let needle, let haystack else { return nil }
        guard needleFits(needle.type) else {
            return context.error("Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead")
        }
        var from: Expression?
        if args.count == 4 {
            guard let f = context.parse(args[3], 3, .number) else { return nil }
            from = f
        }
        return .indexOf(needle: needle, haystack: haystack, from: from, key: context.key)
    }

    static func slice(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 3 || args.count == 4 else { return context.error("Expected 2 or 3 arguments, but found \(args.count - 1) instead.") }
        let input = context.parse(args[1], 1, .value)
        let begin = context.parse(args[2], 2, .number)
        guard let input, let begin else { return nil }
        guard ["array", "string", "value"].contains(input.type.kind) else {
            return context.error("Expected first argument to be of type array or string, but found \(input.type) instead")
        }
        var end: Expression?
        if args.count == 4 {
            guard let e = context.parse(args[3], 3, .number) else { return nil }
            end = e
        }
        return .slice(input.type, input: input, begin: begin, end: end, key: context.key)
    }

    static func length(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else { return context.error("Expected 1 argument, but found \(args.count - 1) instead.") }
        guard let input = context.parse(args[1], 1, nil) else { return nil }
        guard ["array", "string", "value"].contains(input.type.kind) else {
            return context.error("Expected argument of type string or array, but found \(input.type) instead.")
        }
        return .length(input, key: context.key)
    }

    /// The expected output type of a branching expression: the context's, unless `value`.
    private static func outputType(_ context: ParsingContext) -> ExpressionType? {
        context.expectedType == .value ? nil : context.expectedType
    }

    static func conditional(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 4 else { return context.error("Expected at least 3 arguments, but found only \(args.count - 1).") }
        guard args.count % 2 == 0 else { return context.error("Expected an odd number of arguments.") }
        var output = outputType(context)
        var branches: [(test: Expression, value: Expression)] = []
        var i = 1
        while i < args.count - 1 {
            guard let test = context.parse(args[i], i, .boolean), let value = context.parse(args[i + 1], i + 1, output) else { return nil }
            branches.append((test, value))
            output = output ?? value.type
            i += 2
        }
        guard let otherwise = context.parse(args[args.count - 1], args.count - 1, output), let output else { return nil }
        return .conditional(output, branches: branches, otherwise: otherwise)
    }

    static func coalesce(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 2 else { return context.error("Expected at least one argument.") }
        var output = outputType(context)
        var parsed: [Expression] = []
        for i in 1..<args.count {
            guard let p = context.parse(args[i], i, output, annotation: .omit) else { return nil }
            output = output ?? p.type
            parsed.append(p)
        }
        guard let output else { return nil }
        if let expected = context.expectedType, parsed.contains(where: { !expected.accepts($0.type) }) {
            return .coalesce(.value, parsed)
        }
        return .coalesce(output, parsed)
    }

    static func match(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 5 else { return context.error("Expected at least 4 arguments, but found only \(args.count - 1).") }
        guard args.count % 2 == 1 else { return context.error("Expected an even number of arguments.") }
        var inputType: ExpressionType?
        var output = outputType(context)
        var cases: [MatchLabel: Int] = [:]
        var outputs: [Expression] = []
        var i = 2
        while i < args.count - 1 {
            var labels: [JSONValue]
            if case .array(let a) = args[i] { labels = a } else { labels = [args[i]] }
            let labelContext = context.concat(i)
            guard !labels.isEmpty else { return labelContext.error("Expected at least one branch label.") }
            for label in labels {
                let key: MatchLabel
                switch label {
                case .number(let n):
                    guard abs(n) <= 9_007_199_254_740_991 else {
                        return labelContext.error("Branch labels must be integers no larger than 9007199254740991.")
                    }
                    guard n == n.rounded(.down) else { return labelContext.error("Numeric branch labels must be integer values.") }
                    key = .number(n)
                case .string(let s): key = .string(s)
                default: return labelContext.error("Branch labels must be numbers or strings.")
                }
                let labelType = ExpressionValue(label).type
                if inputType == nil { inputType = labelType } else if labelContext.failsSubtype(inputType!, labelType) { return nil }
                guard cases[key] == nil else { return labelContext.error("Branch labels must be unique.") }
                cases[key] = outputs.count
            }
            guard let result = context.parse(args[i + 1], i, output) else { return nil }
            output = output ?? result.type
            outputs.append(result)
            i += 2
        }
        guard let input = context.parse(args[1], 1, .value),
              let otherwise = context.parse(args[args.count - 1], args.count - 1, output),
              let inputType, let output else { return nil }
        if input.type != .value, context.concat(1).failsSubtype(inputType, input.type) { return nil }
        return .match(MatchExpression(inputType: inputType, type: output, input: input, cases: cases, outputs: outputs, otherwise: otherwise))
    }

    static func comparison(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 3 || args.count == 4 else { return context.error("Expected two or three arguments.") }
        guard case .string(let op) = args[0] else { return nil }
        let ordered = op != "==" && op != "!="
        func comparable(_ t: ExpressionType) -> Bool {
            ordered ? [.string, .number, .value].contains(t) : [.boolean, .string, .number, .null, .value].contains(t)
        }
        guard var lhs = context.parse(args[1], 1, .value) else { return nil }
        guard comparable(lhs.type) else { return context.concat(1).error("\"\(op)\" comparisons are not supported for type '\(lhs.type)'.") }
        guard var rhs = context.parse(args[2], 2, .value) else { return nil }
        guard comparable(rhs.type) else { return context.concat(2).error("\"\(op)\" comparisons are not supported for type '\(rhs.type)'.") }
        if lhs.type.kind != rhs.type.kind, lhs.type != .value, rhs.type != .value {
            return context.error("Cannot compare types '\(lhs.type)' and '\(rhs.type)'.")
        }
        if ordered {
            if lhs.type == .value, rhs.type != .value { lhs = .assertion(rhs.type, [lhs], key: context.key) }
            else if lhs.type != .value, rhs.type == .value { rhs = .assertion(lhs.type, [rhs], key: context.key) }
        }
        let untyped = lhs.type == .value || rhs.type == .value
        var collator: Expression?
        if args.count == 4 {
            guard [lhs.type, rhs.type].contains(where: { $0 == .string || $0 == .value }) else {
                return context.error("Cannot use collator to compare non-string types.")
            }
            guard let c = context.parse(args[3], 3, .collator) else { return nil }
            collator = c
        }
        return .comparison(ComparisonExpression(op: op, lhs: lhs, rhs: rhs, collator: collator, key: context.key, hasUntypedArgument: untyped))
    }

    static func globalState(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else { return context.error("Expected 1 argument, but found \(args.count - 1) instead.") }
        guard case .string(let key) = args[1] else {
            if args[1] == .null { return context.error("Global state property must be defined.") }
            return context.error("Global state property must be string, but found \(args[1].jsTypeName) instead.")
        }
        return .globalState(key)
    }
}
