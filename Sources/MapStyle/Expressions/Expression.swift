/// A parsed, type-checked expression (MapLibre Style Specification v8, "Expressions"): the tree
/// ``ExpressionParser`` builds from JSON, each node typed at parse time.
indirect enum Expression: Sendable {
    case literal(ExpressionValue, ExpressionType)
    /// An operator with fixed signatures (maths, `get`, `zoom`, `concat`, …).
    case compound(CompoundCall)
    /// `string`, `number`, `boolean`, `object`, `array`: the first argument of the type, else an error.
    case assertion(ExpressionType, [Expression], key: String)
    /// `to-*` and the parser's implicit conversions to colour, formatted, padding, ….
    case coercion(ExpressionType, [Expression], key: String)
    /// A `let`: each binding's name, value and the key path of the value.
    case binding([(name: String, value: Expression, key: String)], result: Expression)
    /// A `var`; `binding` is the key path of its `let` binding's value, unique in the expression.
    case variable(name: String, bound: Expression, binding: String)
    case at(ExpressionType, index: Expression, input: Expression, key: String)
    case contains(needle: Expression, haystack: Expression, key: String)
    case indexOf(needle: Expression, haystack: Expression, from: Expression?, key: String)
    case slice(ExpressionType, input: Expression, begin: Expression, end: Expression?, key: String)
    case length(Expression, key: String)
    case conditional(ExpressionType, branches: [(test: Expression, value: Expression)], otherwise: Expression)
    case coalesce(ExpressionType, [Expression])
    case match(MatchExpression)
    case curve(CurveExpression)
    case comparison(ComparisonExpression)
    case format([FormatSectionExpression])
    case image(Expression)
    case numberFormat(NumberFormatExpression)
    case collator(caseSensitive: Expression, diacriticSensitive: Expression, locale: Expression?)
    case globalState(String)
    case within(GeometryFilter)
    case distance(GeometryFilter)
    case semiliteral(ExpressionType, [Expression])

    /// The type the parser gave the expression.
    var type: ExpressionType {
        switch self {
        case .literal(_, let t), .assertion(let t, _, _), .coercion(let t, _, _), .at(let t, _, _, _),
             .slice(let t, _, _, _, _), .conditional(let t, _, _), .coalesce(let t, _), .semiliteral(let t, _):
            t
        case .compound(let c): c.type
        case .binding(_, let result): result.type
        case .variable(_, let bound, _): bound.type
        case .contains, .comparison, .within: .boolean
        case .indexOf, .length, .distance: .number
        case .match(let m): m.type
        case .curve(let c): c.type
        case .format: .formatted
        case .image: .resolvedImage
        case .numberFormat: .string
        case .collator: .collator
        case .globalState: .value
        }
    }

    /// The sub-expressions, in MapLibre's `eachChild` order (a variable has none: its bound
    /// expression belongs to the `let`).
    var children: [Expression] {
        switch self {
        case .literal, .variable, .globalState, .within, .distance: []
        case .compound(let c): c.args
        case .assertion(_, let args, _), .coercion(_, let args, _), .coalesce(_, let args), .semiliteral(_, let args): args
        case .binding(let bindings, let result): bindings.map { $0.value } + [result]
        case .at(_, let index, let input, _): [index, input]
        case .contains(let needle, let haystack, _): [needle, haystack]
        case .indexOf(let needle, let haystack, let from, _): [needle, haystack] + (from.map { [$0] } ?? [])
        case .slice(_, let input, let begin, let end, _): [input, begin] + (end.map { [$0] } ?? [])
        case .length(let input, _): [input]
        case .conditional(_, let branches, let otherwise): branches.flatMap { [$0.test, $0.value] } + [otherwise]
        case .match(let m): [m.input] + m.outputs + [m.otherwise]
        case .curve(let c): [c.input] + c.outputs
        case .comparison(let c): [c.lhs, c.rhs] + (c.collator.map { [$0] } ?? [])
        case .format(let sections):
            sections.flatMap { [$0.content] + [$0.scale, $0.font, $0.textColor, $0.verticalAlign].compactMap { $0 } }
        case .image(let name): [name]
        case .numberFormat(let n): [n.number] + [n.locale, n.currency, n.unit, n.minFractionDigits, n.maxFractionDigits].compactMap { $0 }
        case .collator(let c, let d, let locale): [c, d] + (locale.map { [$0] } ?? [])
        }
    }

    var isLiteral: Bool { if case .literal = self { true } else { false } }

    /// Whether the value does not depend on the feature (its properties, id, geometry or state).
    var isFeatureConstant: Bool {
        switch self {
        case .compound(let c):
            if ["get", "has"].contains(c.name), c.args.count == 1 { return false }
            if ["feature-state", "properties", "geometry-type", "id"].contains(c.name) || c.name.hasPrefix("filter-") { return false }
        case .within, .distance: return false
        default: break
        }
        return children.allSatisfy(\.isFeatureConstant)
    }

    /// The feature properties the expression reads, each named by a literal (`["get", "class"]`,
    /// a legacy filter's property); nil when it reads more of the feature: its id, type,
    /// geometry or state, every property, or a property named at run time. At one zoom the
    /// value is then the same for all features that agree in these properties.
    var readPropertyNames: Set<String>? {
        var names = Set<String>()
        return addReadPropertyNames(to: &names) ? names : nil
    }

    /// The legacy filter operators that read the property their first argument names.
    private static let propertyFilterOperators: Set<String> = ["filter-==", "filter-has", "filter-in", "filter-<", "filter->", "filter-<=", "filter->="]

    private func addReadPropertyNames(to names: inout Set<String>) -> Bool {
        switch self {
        case .compound(let c):
            if c.args.count == 1 && (c.name == "get" || c.name == "has") || Self.propertyFilterOperators.contains(c.name) {
                guard case .literal(.string(let name), _)? = c.args.first else { return false }
                names.insert(name)
            } else if ["feature-state", "properties", "geometry-type", "id"].contains(c.name) || c.name.hasPrefix("filter-") {
                return false
            }
        case .within, .distance: return false
        default: break
        }
        return children.allSatisfy { $0.addReadPropertyNames(to: &names) }
    }

    /// Whether the value does not depend on any of the named global operators (`zoom`, …).
    func isGlobalConstant(_ names: [String]) -> Bool {
        if case .compound(let c) = self, names.contains(c.name) { return false }
        return children.allSatisfy { $0.isGlobalConstant(names) }
    }

    /// Whether the parser may evaluate the expression once and keep its value (MapLibre's
    /// `isExpressionConstant`): its arguments are literals and it reads nothing at run time.
    var isConstant: Bool {
        switch self {
        case .variable(_, let bound, _): return bound.isConstant
        case .compound(let c) where c.name == "error": return false
        case .collator, .within, .distance, .globalState: return false
        case .assertion, .coercion:
            guard children.allSatisfy(\.isConstant) else { return false }
        default:
            guard children.allSatisfy(\.isLiteral) else { return false }
        }
        return isFeatureConstant
            && isGlobalConstant(["zoom", "heatmap-density", "elevation", "line-progress", "accumulated", "is-supported-script"])
    }
}

/// A call of a fixed-signature operator, with the evaluation its matching overload chose.
struct CompoundCall: Sendable {
    typealias Evaluate = @Sendable (EvaluationContext, [Expression], String) throws -> ExpressionValue
    var name: String
    var type: ExpressionType
    var args: [Expression]
    var key: String
    var evaluate: Evaluate
}

struct MatchExpression: Sendable {
    var inputType: ExpressionType
    var type: ExpressionType
    var input: Expression
    /// Branch label (a number or string, as JSON text) → index into `outputs`.
    var cases: [MatchLabel: Int]
    var outputs: [Expression]
    var otherwise: Expression
}

/// A `match` branch label: an integer or a string.
enum MatchLabel: Hashable, Sendable {
    case number(Double)
    case string(String)
}

/// `step`, `interpolate`, `interpolate-hcl` or `interpolate-lab` over numeric stops.
struct CurveExpression: Sendable {
    enum Operator: String, Sendable { case step, interpolate, interpolateHCL = "interpolate-hcl", interpolateLab = "interpolate-lab" }
    /// How `interpolate` maps an input between two stops to 0 … 1.
    enum Interpolation: Sendable, Equatable {
        case linear
        case exponential(base: Double)
        case cubicBezier(Double, Double, Double, Double)
    }
    var type: ExpressionType
    var op: Operator
    var interpolation: Interpolation?
    var input: Expression
    var labels: [Double]
    var outputs: [Expression]
    var key: String
}

struct ComparisonExpression: Sendable {
    var op: String
    var lhs: Expression
    var rhs: Expression
    var collator: Expression?
    var key: String
    /// Whether either side is of type `value`, checked at run time.
    var hasUntypedArgument: Bool
}

struct FormatSectionExpression: Sendable {
    var content: Expression
    var scale: Expression?
    var font: Expression?
    var textColor: Expression?
    var verticalAlign: Expression?
}

struct NumberFormatExpression: Sendable {
    var number: Expression
    var locale: Expression?
    var currency: Expression?
    var unit: Expression?
    var minFractionDigits: Expression?
    var maxFractionDigits: Expression?
}
