import GeoCore

/// The legacy function syntax (spec v8 "Other: Function": `stops`, `base`, `property`, `type`
/// exponential / interval / categorical / identity, `colorSpace`, `default`) rewritten as the
/// equivalent expression, as MapLibre does before parsing.
enum LegacyFunction {
    static func convert(_ function: JSONValue, _ spec: PropertySpecification) -> JSONValue {
        let property = function.member("property")
        guard case .array(let rawStops)? = function.member("stops") else { return identity(function, spec) }
        let zoomAndFeature = if case .object? = rawStops.first?.items.first { true } else { false }
        let featureDependent = zoomAndFeature || property != nil
        let stops: [(JSONValue, JSONValue)] = rawStops.map { stop in
            let items = stop.items
            let input = items.first ?? .null, output = items.count > 1 ? items[1] : .null
            if !featureDependent, spec.tokens, case .string(let s) = output { return (input, tokenString(s)) }
            return (input, literal(output))
        }
        if zoomAndFeature { return zoomAndProperty(function, spec, stops) }
        if featureDependent { return propertyFunction(function, spec, stops) }
        return zoomFunction(function, spec, stops)
    }

    private static func literal(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array, .object: .array([.string("literal"), value])
        default: value
        }
    }

    private static func get(_ function: JSONValue) -> JSONValue { .array([.string("get"), function.member("property") ?? .null]) }

    private static func identity(_ function: JSONValue, _ spec: PropertySpecification) -> JSONValue {
        let get = get(function)
        guard let fallback = function.member("default") else { return spec.type == "string" ? .array([.string("string"), get]) : get }
        if spec.type == "enum" { return .array([.string("match"), get, .array(spec.enumValues.map(JSONValue.string)), get, fallback]) }
        var expression: [JSONValue] = [.string(spec.type == "color" ? "to-color" : spec.type), get, literal(fallback)]
        if spec.type == "array" { expression.insert(contentsOf: [spec.value.map(JSONValue.string) ?? .null, spec.length.map { .number(Double($0)) } ?? .null], at: 1) }
        return .array(expression)
    }

    private static func interpolateOperator(_ function: JSONValue) -> JSONValue {
        switch function.member("colorSpace") {
        case .string("hcl")?: .string("interpolate-hcl")
        case .string("lab")?: .string("interpolate-lab")
        default: .string("interpolate")
        }
    }

    private static func functionType(_ function: JSONValue, _ spec: PropertySpecification) -> String {
        function.member("type")?.string ?? (spec.interpolated ? "exponential" : "interval")
    }

    private static func curveType(_ function: JSONValue) -> JSONValue {
        let base = if case .number(let b)? = function.member("base") { b } else { 1.0 }
        return base == 1 ? .array([.string("linear")]) : .array([.string("exponential"), .number(base)])
    }

    /// Appends a stop, skipping a repeated input (legacy functions allowed them) and the first
    /// input of a `step`.
    private static func append(_ curve: inout [JSONValue], _ input: JSONValue, _ output: JSONValue, isStep: Bool) {
        if curve.count > 3, input == curve[curve.count - 2] { return }
        if !(isStep && curve.count == 2) { curve.append(input) }
        curve.append(output)
    }

    /// A `step` with only its default output gets a no-op stop.
    private static func fixDegenerateStep(_ curve: inout [JSONValue]) {
        if curve.first == .string("step"), curve.count == 3 { curve += [.number(0), curve[2]] }
    }

    private static func zoomFunction(_ function: JSONValue, _ spec: PropertySpecification, _ stops: [(JSONValue, JSONValue)]) -> JSONValue {
        let isStep = functionType(function, spec) == "interval"
        var curve: [JSONValue] = isStep ? [.string("step"), .array([.string("zoom")])]
            : [interpolateOperator(function), curveType(function), .array([.string("zoom")])]
        for (input, output) in stops { append(&curve, input, output, isStep: isStep) }
        fixDegenerateStep(&curve)
        return .array(curve)
    }

    private static func propertyFunction(_ function: JSONValue, _ spec: PropertySpecification, _ stops: [(JSONValue, JSONValue)]) -> JSONValue {
        let type = functionType(function, spec)
        let get = get(function)
        let fallback = literal(function.member("default") ?? spec.defaultValue ?? .null)
        func orDefault(_ curve: [JSONValue]) -> JSONValue {
            guard let d = function.member("default") else { return .array(curve) }
            return .array([.string("case"), .array([.string("=="), .array([.string("typeof"), get]), .string("number")]), .array(curve), literal(d)])
        }
        switch type {
        case "categorical":
            if case .bool? = stops.first?.0 {
                var expression: [JSONValue] = [.string("case")]
                for (input, output) in stops { expression += [.array([.string("=="), get, input]), output] }
                return .array(expression + [fallback])
            }
            var expression: [JSONValue] = [.string("match"), get]
            for (input, output) in stops { append(&expression, input, output, isStep: false) }
            return .array(expression + [fallback])
        case "interval":
            var expression: [JSONValue] = [.string("step"), .array([.string("number"), get])]
            for (input, output) in stops { append(&expression, input, output, isStep: true) }
            fixDegenerateStep(&expression)
            return orDefault(expression)
        default:
            var expression: [JSONValue] = [interpolateOperator(function), curveType(function), .array([.string("number"), get])]
            for (input, output) in stops { append(&expression, input, output, isStep: false) }
            return orDefault(expression)
        }
    }

    /// Stops `[{zoom, value}, output]`: a zoom curve (linear when the property interpolates,
    /// else step) of property functions, one per zoom.
    private static func zoomAndProperty(_ function: JSONValue, _ spec: PropertySpecification, _ stops: [(JSONValue, JSONValue)]) -> JSONValue {
        var zooms: [JSONValue] = []
        var perZoom: [JSONValue: [(JSONValue, JSONValue)]] = [:]
        for (input, output) in stops {
            let zoom = input.member("zoom") ?? .null
            if perZoom[zoom] == nil { zooms.append(zoom); perZoom[zoom] = [] }
            perZoom[zoom]!.append((input.member("value") ?? .null, output))
        }
        var inner: [String: JSONValue] = ["property": function.member("property") ?? .null]
        if let type = function.member("type") { inner["type"] = type }
        if let d = function.member("default") { inner["default"] = d }
        let isStep = functionType(.object([:]), spec) != "exponential"
        var curve: [JSONValue] = isStep ? [.string("step"), .array([.string("zoom")])]
            : [interpolateOperator(function), .array([.string("linear")]), .array([.string("zoom")])]
        for zoom in zooms {
            append(&curve, zoom, propertyFunction(.object(inner), spec, perZoom[zoom]!), isStep: isStep)
        }
        if isStep { fixDegenerateStep(&curve) }
        return .array(curve)
    }

    /// `"a {name} b"` → `["concat", "a ", ["get", "name"], " b"]`; a lone token → `["to-string", ["get", …]]`.
    static func tokenString(_ s: String) -> JSONValue {
        var parts: [JSONValue] = []
        var literalText = ""
        var rest = Substring(s)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(where: { $0 == "}" || $0 == "{" }), after[close] == "}", close > after.startIndex else {
                literalText += rest[...open]
                rest = after
                continue
            }
            literalText += rest[..<open]
            if !literalText.isEmpty { parts.append(.string(literalText)); literalText = "" }
            parts.append(.array([.string("get"), .string(String(after[..<close]))]))
            rest = after[after.index(after: close)...]
        }
        literalText += rest
        if parts.isEmpty { return .string(s) }
        if !literalText.isEmpty { parts.append(.string(literalText)) } else if parts.count == 1 { return .array([.string("to-string"), parts[0]]) }
        return .array([.string("concat")] + parts)
    }
}
