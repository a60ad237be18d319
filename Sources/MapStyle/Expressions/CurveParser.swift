import GeoCore

/// Parsing of `step` and `interpolate` / `interpolate-hcl` / `interpolate-lab`: literal,
/// strictly ascending stop inputs, outputs of one type, and for interpolation an
/// interpolatable output type.
enum CurveParser {
    static func step(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count - 1 >= 4 else { return context.error("Expected at least 4 arguments, but found only \(args.count - 1).") }
        guard (args.count - 1) % 2 == 0 else { return context.error("Expected an even number of arguments.") }
        guard let input = context.parse(args[1], 1, .number) else { return nil }
        var output: ExpressionType? = context.expectedType == .value ? nil : context.expectedType
        var labels: [Double] = []
        var outputs: [Expression] = []
        var i = 1
        while i < args.count {
            let label: Double
            if i == 1 {
                label = -.infinity
            } else {
                guard case .number(let n) = args[i] else {
                    return context.error(#"Input/output pairs for "step" expressions must be defined using literal numeric values (not computed expressions) for the input values."#, i)
                }
                label = n
            }
            if let last = labels.last, last >= label {
                return context.error(#"Input/output pairs for "step" expressions must be arranged with input values in strictly ascending order."#, i)
            }
            guard let parsed = context.parse(args[i + 1], i + 1, output) else { return nil }
            output = output ?? parsed.type
            labels.append(label)
            outputs.append(parsed)
            i += 2
        }
        return .curve(CurveExpression(type: output!, op: .step, interpolation: nil, input: input, labels: labels, outputs: outputs, key: context.key))
    }

    static func interpolate(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard case .string(let name) = args[0], let op = CurveExpression.Operator(rawValue: name) else { return nil }
        guard args.count > 1, case .array(let kind) = args[1], let kindName = kind.first else {
            return context.error("Expected an interpolation type expression.", 1)
        }
        let interpolation: CurveExpression.Interpolation
        switch kindName {
        case .string("linear"): interpolation = .linear
        case .string("exponential"):
            guard kind.count > 1, case .number(let base) = kind[1] else {
                return context.error("Exponential interpolation requires a numeric base.", 1, 1)
            }
            interpolation = .exponential(base: base)
        case .string("cubic-bezier"):
            let points = kind.dropFirst().compactMap { v -> Double? in if case .number(let n) = v, n >= 0, n <= 1 { n } else { nil } }
            guard kind.count == 5, points.count == 4 else {
                return context.error("Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.", 1)
            }
            interpolation = .cubicBezier(points[0], points[1], points[2], points[3])
        default:
            let shown = if case .string(let s) = kindName { s } else { ExpressionValue(kindName).text }
            return context.error("Unknown interpolation type \(shown)", 1, 0)
        }
        guard args.count - 1 >= 4 else { return context.error("Expected at least 4 arguments, but found only \(args.count - 1).") }
        guard (args.count - 1) % 2 == 0 else { return context.error("Expected an even number of arguments.") }
        guard let input = context.parse(args[2], 2, .number) else { return nil }
        var output: ExpressionType?
        if op != .interpolate, context.expectedType != .colorArray {
            output = .color
        } else if context.expectedType != .value {
            output = context.expectedType
        }
        var labels: [Double] = []
        var outputs: [Expression] = []
        var i = 3
        while i < args.count {
            guard case .number(let label) = args[i] else {
                return context.error(#"Input/output pairs for "interpolate" expressions must be defined using literal numeric values (not computed expressions) for the input values."#, i)
            }
            if let last = labels.last, last >= label {
                return context.error(#"Input/output pairs for "interpolate" expressions must be arranged with input values in strictly ascending order."#, i)
            }
            guard let parsed = context.parse(args[i + 1], i + 1, output) else { return nil }
            output = output ?? parsed.type
            labels.append(label)
            outputs.append(parsed)
            i += 2
        }
        guard let output else { return nil }
        let interpolatable: Bool = switch output {
        case .number, .projectionDefinition, .color, .padding, .numberArray, .colorArray, .variableAnchorOffsetCollection: true
        case .array(.number, let length): length != nil
        default: false
        }
        guard interpolatable else { return context.error("Type \(output) is not interpolatable.") }
        return .curve(CurveExpression(type: output, op: op, interpolation: interpolation, input: input, labels: labels, outputs: outputs, key: context.key))
    }
}
