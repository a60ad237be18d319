/// The operators legacy filters become (MapLibre's `filter-*` compound expressions): they
/// compare a feature's property, id or geometry type with a literal, as legacy filters did —
/// ordering only between values of the same JavaScript type, a missing property equal to nothing.
enum FilterOperators {
    typealias Definition = CompoundOperators.Definition

    /// The literal value of a parsed argument (filter operands are literals by construction).
    private static func literal(_ e: Expression) -> ExpressionValue {
        if case .literal(let value, _) = e { return value }
        return .null
    }

    /// A property of the feature; nil when it has none.
    private static func property(_ ctx: EvaluationContext, _ key: Expression) -> ExpressionValue? {
        literal(key).string.flatMap { ctx.properties[$0] }
    }

    /// JavaScript's `typeof a === typeof b && a OP b` for two primitive values.
    private static func ordered(_ a: ExpressionValue?, _ b: ExpressionValue, _ op: String) -> Bool {
        let order: Int
        switch (a, b) {
        case (.number(let x)?, .number(let y)):
            if x.isNaN || y.isNaN { return false }
            order = x < y ? -1 : x > y ? 1 : 0
        case (.string(let x)?, .string(let y)):
            order = x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : x.utf16.elementsEqual(y.utf16) ? 0 : 1
        case (.boolean(let x)?, .boolean(let y)): order = x == y ? 0 : (!x ? -1 : 1)
        case (.null?, .null): order = 0
        default: return false
        }
        switch op {
        case "<": return order < 0
        case ">": return order > 0
        case "<=": return order <= 0
        default: return order >= 0
        }
    }

    private static func equal(_ a: ExpressionValue?, _ b: ExpressionValue) -> Bool { a.map { $0.strictlyEquals(b) } ?? false }

    private static func list(_ e: Expression) -> [ExpressionValue] {
        if case .array(let items) = literal(e) { return items }
        return []
    }

    private static func id(_ ctx: EvaluationContext) -> ExpressionValue { ctx.feature?.id ?? .null }
    private static func type(_ ctx: EvaluationContext) -> ExpressionValue { ctx.feature?.geometryType.map(ExpressionValue.string) ?? .null }

    static let definitions: [String: Definition] = {
        var table: [String: Definition] = [
            "filter-==": Definition(type: .boolean, overloads: [(.fixed([.string, .value]), { ctx, a, _ in .boolean(equal(property(ctx, a[0]), literal(a[1]))) })]),
            "filter-id-==": Definition(type: .boolean, overloads: [(.fixed([.value]), { ctx, a, _ in .boolean(id(ctx).strictlyEquals(literal(a[0]))) })]),
            "filter-type-==": Definition(type: .boolean, overloads: [(.fixed([.string]), { ctx, a, _ in .boolean(type(ctx).strictlyEquals(literal(a[0]))) })]),
            "filter-has": Definition(type: .boolean, overloads: [(.fixed([.value]), { ctx, a, _ in .boolean(property(ctx, a[0]) != nil) })]),
            "filter-has-id": Definition(type: .boolean, overloads: [(.fixed([]), { ctx, _, _ in .boolean(id(ctx) != .null) })]),
            "filter-type-in": Definition(type: .boolean, overloads: [(.fixed([.array(.string, length: nil)]), { ctx, a, _ in
                .boolean(list(a[0]).contains { $0.strictlyEquals(type(ctx)) })
            })]),
            "filter-id-in": Definition(type: .boolean, overloads: [(.fixed([.array(.value, length: nil)]), { ctx, a, _ in
                .boolean(list(a[0]).contains { $0.strictlyEquals(id(ctx)) })
            })]),
            "filter-in": Definition(type: .boolean, overloads: [(.fixed([.string, .array(.value, length: nil)]), { ctx, a, _ in
                guard let value = property(ctx, a[0]) else { return .boolean(false) }
                return .boolean(list(a[1]).contains { $0.strictlyEquals(value) })
            })]),
        ]
        for op in ["<", ">", "<=", ">="] {
            table["filter-\(op)"] = Definition(type: .boolean, overloads: [(.fixed([.string, .value]), { ctx, a, _ in
                .boolean(ordered(property(ctx, a[0]), literal(a[1]), op))
            })])
            table["filter-id-\(op)"] = Definition(type: .boolean, overloads: [(.fixed([.value]), { ctx, a, _ in
                .boolean(ordered(id(ctx), literal(a[0]), op))
            })])
        }
        return table
    }()
}
