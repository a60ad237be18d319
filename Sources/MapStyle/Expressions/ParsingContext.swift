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

    /// The deepest nesting of expressions parsed: deeper ones are an error, so that parsing and
    /// evaluation (recursive, as MapLibre's) stay within a thread's stack. Real styles nest a few
    /// levels; Foundation's JSON reader stops at 512.
    static let maximumDepth = 128

    /// Every sub-parse of one parse, by where it is and what was expected: an operator with
    /// several overloads parses its arguments once per overload, and nested ones would
    /// otherwise parse the innermost argument (overloads + 1)^depth times.
    final class Memo {
        struct Key: Hashable {
            var place: [Int]
            var expected: ExpressionType?
            var annotation: Annotation?
        }
        var results: [Key: (expression: Expression?, errors: [ExpressionParsingError])] = [:]
    }

    /// A `let` binding in scope: its name, value and the key path of the value.
    struct Binding {
        var name: String
        var value: Expression
        var key: String
    }

    let path: [Int]
    /// `path`, plus a mark for each `semiliteral` item (whose items share its key) above.
    let place: [Int]
    let scope: [Binding]
    let errors: Errors
    let memo: Memo
    let expectedType: ExpressionType?

    init(path: [Int] = [], place: [Int]? = nil, scope: [Binding] = [], errors: Errors = Errors(), memo: Memo = Memo(),
         expectedType: ExpressionType? = nil) {
        self.path = path
        self.place = place ?? path
        self.scope = scope
        self.errors = errors
        self.memo = memo
        self.expectedType = expectedType
    }

    var key: String { path.map { "[\($0)]" }.joined() }

    /// A context for argument `index`, expecting `expected`, with `bindings` added to the scope.
    func concat(_ index: Int?, _ expected: ExpressionType? = nil, bindings: [Binding] = []) -> ParsingContext {
        ParsingContext(path: index.map { path + [$0] } ?? path, place: index.map { place + [$0] } ?? place, scope: scope + bindings,
                       errors: errors, memo: memo, expectedType: expected)
    }

    /// Parses a value that MapLibre reports at argument `index` although it is not that argument
    /// (the sections and options of `format`, the options of `number-format` and `collator`);
    /// `slot` tells the values reported there apart.
    func parse(_ json: JSONValue, reportedAt index: Int, slot: Int, _ expected: ExpressionType?) -> Expression? {
        ParsingContext(path: path + [index], place: place + [index, -1 - slot], scope: scope, errors: errors, memo: memo,
                       expectedType: expected).parse(json)
    }

    /// The context of item `index` of a `semiliteral`: the same key and expected type, its own place.
    func semiliteralItem(_ index: Int) -> ParsingContext {
        ParsingContext(path: path, place: place + [-1 - index], scope: scope, errors: errors, memo: memo, expectedType: expectedType)
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
        let key = Memo.Key(place: place, expected: expectedType, annotation: annotation)
        if let earlier = memo.results[key] {
            errors.list += earlier.errors
            return earlier.expression
        }
        let errorsBefore = errors.list.count
        let parsed = parseOnce(json, annotation: annotation)
        memo.results[key] = (parsed, Array(errors.list[errorsBefore...]))
        return parsed
    }

    private func parseOnce(_ json: JSONValue, annotation: Annotation?) -> Expression? {
        guard path.count <= Self.maximumDepth else { return error("Expressions may nest at most \(Self.maximumDepth) levels deep.") }
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
