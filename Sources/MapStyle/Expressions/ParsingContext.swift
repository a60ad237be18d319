import GeoCore

/// Where the parser is (MapLibre's `ParsingContext`): the key path, the `let` bindings in scope,
/// the type the enclosing expression expects, and the shared list of errors.
struct ParsingContext {
    /// Errors found so far, shared by every context of one parse (or one overload attempt).
    final class Errors {
        var list: [ExpressionParsingError] = []
    }

    /// How a parsed expression of type `value` (or a convertible type) is fitted to the expected type.
    enum Annotation { case assert, coerce, omit }

    /// A `let` binding in scope: its name, value and the key path of the value.
    struct Binding {
        var name: String
        var value: Expression
        var key: String
    }

    let path: [Int]
    let scope: [Binding]
    let errors: Errors
    let expectedType: ExpressionType?

    init(path: [Int] = [], scope: [Binding] = [], errors: Errors = Errors(), expectedType: ExpressionType? = nil) {
        self.path = path
        self.scope = scope
        self.errors = errors
        self.expectedType = expectedType
    }

    var key: String { path.map { "[\($0)]" }.joined() }

    /// A context for argument `index`, expecting `expected`, with `bindings` added to the scope.
    func concat(_ index: Int?, _ expected: ExpressionType? = nil, bindings: [Binding] = []) -> ParsingContext {
        ParsingContext(path: index.map { path + [$0] } ?? path, scope: scope + bindings, errors: errors, expectedType: expected)
    }

    /// Parses argument `index` of the current expression, expecting `expected`.
    func parse(_ json: JSONValue, _ index: Int, _ expected: ExpressionType?, bindings: [Binding] = [],
               annotation: Annotation? = nil) -> Expression? {
        concat(index, expected, bindings: bindings).parse(json, annotation: annotation)
    }

    /// Records an error at this key (plus `keys`) and returns nil.
    @discardableResult
    func error(_ message: String, _ keys: Int...) -> Expression? {
        errors.list.append(ExpressionParsingError(key: key + keys.map { "[\($0)]" }.joined(), message: message))
        return nil
    }

    /// Records the mismatch when `t` does not fit `expected`; true when it does not.
    func failsSubtype(_ expected: ExpressionType, _ t: ExpressionType) -> Bool {
        guard let message = expected.mismatch(t) else { return false }
        error(message)
        return true
    }

    func lookup(_ name: String) -> Binding? { scope.last { $0.name == name } }

    /// Parses `json` at this context: literals, then `[operator, args…]`, fitted to the expected
    /// type by an assertion or coercion where MapLibre inserts one, then folded to a literal
    /// when constant.
    func parse(_ json: JSONValue, annotation: Annotation? = nil) -> Expression? {
        let expr: [JSONValue]
        switch json {
        case .null, .bool, .number, .string: expr = [.string("literal"), json]
        case .array(let a): expr = a
        case .object: return error(#"Bare objects invalid. Use ["literal", {...}] instead."#)
        }
        guard let first = expr.first else {
            return error(#"Expected an array with at least one element. If you wanted a literal array, use ["literal", []]."#)
        }
        guard case .string(let op) = first else {
            return error("Expression name must be a string, but found \(first.jsTypeName) instead. If you wanted a literal array, use [\"literal\", [...]].", 0)
        }
        guard let parser = ExpressionParser.operators[op] else {
            return error("Unknown expression \"\(op)\". If you wanted a literal array, use [\"literal\", [...]].", 0)
        }
        guard var parsed = parser(expr, self) else { return nil }
        if let expected = expectedType {
            let actual = parsed.type
            if ["string", "number", "boolean", "object", "array"].contains(expected.kind), actual == .value {
                parsed = annotate(parsed, expected, annotation ?? .assert)
            } else if Self.coercible(to: expected, from: actual) {
                parsed = annotate(parsed, expected, annotation ?? .coerce)
            } else if failsSubtype(expected, actual) {
                return nil
            }
        }
        if !parsed.isLiteral, parsed.type != .resolvedImage, parsed.isConstant {
            do {
                parsed = .literal(try parsed.evaluate(EvaluationContext()), parsed.type)
            } catch let failure as ExpressionEvaluationError {
                return error(failure.message)
            } catch {
                return self.error("\(error)")
            }
        }
        return parsed
    }

    private func annotate(_ parsed: Expression, _ type: ExpressionType, _ annotation: Annotation) -> Expression {
        switch annotation {
        case .assert: .assertion(type, [parsed], key: key)
        case .coerce: .coercion(type, [parsed], key: key)
        case .omit: parsed
        }
    }

    /// The implicit conversions: strings to colours, formatted text, images; numbers and arrays
    /// to padding and number arrays; arrays to anchor offsets; strings and arrays to projections.
    private static func coercible(to expected: ExpressionType, from actual: ExpressionType) -> Bool {
        switch expected {
        case .projectionDefinition: ["string", "array", "value"].contains(actual.kind)
        case .color, .formatted, .resolvedImage: actual == .value || actual == .string
        case .padding, .numberArray: ["value", "number", "array"].contains(actual.kind)
        case .colorArray: ["value", "string", "array"].contains(actual.kind)
        case .variableAnchorOffsetCollection: ["value", "array"].contains(actual.kind)
        default: false
        }
    }
}

extension JSONValue {
    /// JavaScript's `typeof` of the value.
    var jsTypeName: String {
        switch self {
        case .null, .array, .object: "object"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        }
    }
}
