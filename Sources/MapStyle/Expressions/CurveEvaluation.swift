import Platform

extension CurveExpression {
    /// The output for the input's value: the stop at or below it for `step`; for
    /// `interpolate` the two stops around it blended by the interpolation's factor.
    func evaluate(_ ctx: EvaluationContext) throws -> ExpressionValue {
        if labels.count == 1 { return try outputs[0].evaluate(ctx) }
        let value = try input.evaluate(ctx).number ?? .nan
        if value <= labels[0] { return try outputs[0].evaluate(ctx) }
        if value >= labels[labels.count - 1] { return try outputs[labels.count - 1].evaluate(ctx) }
        guard !value.isNaN else { throw ExpressionEvaluationError(message: "Input is not a number.", key: key) }
        // The last stop at or below the value (labels ascend strictly).
        var low = 0, high = labels.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if labels[mid] <= value { low = mid } else { high = mid }
        }
        guard let interpolation else { return try outputs[low].evaluate(ctx) }
        let t = Self.factor(interpolation, value, labels[low], labels[low + 1])
        let a = try outputs[low].evaluate(ctx), b = try outputs[low + 1].evaluate(ctx)
        return try Self.interpolate(a, b, t, op: op, key: key)
    }

    /// 0 … 1 for `input` between `lower` and `upper` (spec: `interpolate`): linear, exponential
    /// with `base` (`(baseᵖ − 1) / (baseᵈ − 1)`), or a unit cubic Bézier of the linear factor.
    static func factor(_ interpolation: Interpolation, _ input: Double, _ lower: Double, _ upper: Double) -> Double {
        let difference = upper - lower, progress = input - lower
        func exponential(_ base: Double) -> Double {
            if difference == 0 { return 0 }
            if base == 1 { return progress / difference }
            return (pow(base, progress) - 1) / (pow(base, difference) - 1)
        }
        switch interpolation {
        case .linear: return exponential(1)
        case .exponential(let base): return exponential(base)
        case .cubicBezier(let x1, let y1, let x2, let y2):
            return UnitBezier(x1: x1, y1: y1, x2: x2, y2: y2).solve(exponential(1))
        }
    }

    static func interpolate(_ a: ExpressionValue, _ b: ExpressionValue, _ t: Double, op: Operator, key: String) throws -> ExpressionValue {
        func mix(_ x: Double, _ y: Double) -> Double { x + t * (y - x) }
        func mixAll(_ x: [Double], _ y: [Double]) -> [Double] { zip(x, y).map { mix($0, $1) } }
        let space: StyleColor.ColorSpace = op == .interpolateHCL ? .hcl : op == .interpolateLab ? .lab : .rgb
        switch (a, b) {
        case (.number(let x), .number(let y)): return .number(mix(x, y))
        case (.color(let x), .color(let y)): return .color(StyleColor.interpolate(x, y, t, space: space))
        case (.padding(let x), .padding(let y)): return .padding(mixAll(x, y))
        case (.numberArray(let x), .numberArray(let y)): return .numberArray(mixAll(x, y))
        case (.colorArray(let x), .colorArray(let y)):
            guard x.count == y.count else {
                throw ExpressionEvaluationError(message: "colorArray: Arrays have mismatched length (\(x.count) vs. \(y.count)), cannot interpolate.", key: "")
            }
            return .colorArray(zip(x, y).map { StyleColor.interpolate($0, $1, t, space: space) })
        case (.variableAnchorOffsetCollection(let x), .variableAnchorOffsetCollection(let y)):
            guard x.count == y.count else {
                throw ExpressionEvaluationError(message: "Cannot interpolate values of different length. from: \(a.text), to: \(b.text)", key: key)
            }
            var out: [ExpressionValue] = []
            for i in stride(from: 0, to: x.count, by: 2) {
                guard x[i].strictlyEquals(y[i]) else {
                    throw ExpressionEvaluationError(message: "Cannot interpolate values containing mismatched anchors. from[\(i)]: \(x[i].text), to[\(i)]: \(y[i].text)", key: key)
                }
                guard case .array(let p) = x[i + 1], case .array(let q) = y[i + 1] else { continue }
                out += [x[i], .array(mixAll(p.compactMap(\.number), q.compactMap(\.number)).map(ExpressionValue.number))]
            }
            return .variableAnchorOffsetCollection(out)
        case (.array(let x), .array(let y)):
            return .array(mixAll(x.map { $0.number ?? .nan }, y.map { $0.number ?? .nan }).map(ExpressionValue.number))
        default:
            // Projections: the pair and how far between them.
            guard let from = ProjectionDefinition.parse(a)?.from, let to = ProjectionDefinition.parse(b)?.to else { return a }
            return .projectionDefinition(ProjectionDefinition(from: from, to: to, transition: t))
        }
    }
}

/// A CSS `cubic-bezier(x1, y1, x2, y2)` timing curve from (0, 0) to (1, 1), solved for y at x
/// by Newton's method with a bisection fallback (as WebKit's UnitBezier).
struct UnitBezier {
    let cx: Double, bx: Double, ax: Double, cy: Double, by: Double, ay: Double

    init(x1: Double, y1: Double, x2: Double, y2: Double) {
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by
    }

    private func x(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    private func y(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    private func dx(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// y at `x` (0 … 1), to within 1e-6 in x.
    func solve(_ xTarget: Double, epsilon: Double = 1e-6) -> Double {
        if xTarget <= 0 { return 0 }
        if xTarget >= 1 { return 1 }
        var t = xTarget
        for _ in 0..<8 {
            let error = x(t) - xTarget
            if abs(error) < epsilon { return y(t) }
            let slope = dx(t)
            if abs(slope) < 1e-6 { break }
            t -= error / slope
        }
        var low = 0.0, high = 1.0
        t = xTarget
        while low < high {
            let value = x(t)
            if abs(value - xTarget) < epsilon { return y(t) }
            if xTarget > value { low = t } else { high = t }
            t = (high - low) * 0.5 + low
            if high - low < 1e-12 { break }
        }
        return y(t)
    }
}
