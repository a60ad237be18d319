import GeoBase
import GeoCore

/// Checks of values against their v8.json entries, with maplibre-style-spec's validator
/// messages (`validate_number`, `validate_color`, `validate_enum`, `validate_array`, …).
enum StyleValidation {
    /// The validator's name of a JSON value's type (`getType`).
    static func typeName(_ v: JSONValue) -> String {
        switch v {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A value as JavaScript's `JSON.stringify` writes it (short, for messages).
    static func quoted(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "\"\(s)\""
        case .number(let n): return ShortestDecimal.string(n)
        case .bool(let b): return String(b)
        case .null: return "null"
        case .array(let a): return "[" + a.prefix(8).map(quoted).joined(separator: ",") + (a.count > 8 ? ",…" : "") + "]"
        case .object: return "{…}"
        }
    }

    /// Whether `json` is an expression (`isExpression`): an array whose first item names an operator.
    static func isExpression(_ json: JSONValue) -> Bool {
        guard case .array(let a) = json, case .string(let op)? = a.first else { return false }
        return ExpressionParser.operators[op] != nil
    }

    /// The problems of a constant for `spec` at `path` (empty when it fits).
    static func constantProblems(_ json: JSONValue, _ spec: PropertySpecification, path: String) -> [StyleDiagnostic] {
        func expected(_ what: String) -> [StyleDiagnostic] {
            [StyleDiagnostic(path: path, message: "\(what) expected, \(typeName(json)) found")]
        }
        switch spec.type {
        case "number":
            guard case .number(let n) = json else { return expected("number") }
            if let lo = spec.minimum, n < lo {
                return [StyleDiagnostic(path: path, message: "\(quoted(json)) is less than the minimum value \(quoted(.number(lo)))")]
            }
            if let hi = spec.maximum, n > hi {
                return [StyleDiagnostic(path: path, message: "\(quoted(json)) is greater than the maximum value \(quoted(.number(hi)))")]
            }
            return []
        case "boolean": if case .bool = json { return [] } else { return expected("boolean") }
        case "string", "resolvedImage": if case .string = json { return [] } else { return expected("string") }
        case "color":
            guard case .string(let s) = json else { return expected("color") }
            return StyleColor(css: s) == nil ? [StyleDiagnostic(path: path, message: "color expected, \(quoted(json)) found")] : []
        case "enum":
            guard case .string(let s) = json, spec.enumValues.contains(s) else {
                return [StyleDiagnostic(path: path, message: "expected one of [\(spec.enumValues.joined(separator: ", "))], \(quoted(json)) found")]
            }
            return []
        case "array":
            guard case .array(let items) = json else { return expected("array") }
            if let n = spec.length, items.count != n {
                return [StyleDiagnostic(path: path, message: "array length \(n) expected, length \(items.count) found")]
            }
            guard let item = spec.value, ["number", "string", "boolean", "color", "enum"].contains(item) else { return [] }
            var itemSpec = PropertySpecification(json: .object(["type": .string(item)]))
            itemSpec.minimum = spec.minimum
            itemSpec.maximum = spec.maximum
            itemSpec.enumValues = spec.enumValues
            return items.enumerated().flatMap { constantProblems($0.element, itemSpec, path: "\(path)[\($0.offset)]") }
        default:
            return StyleProperty.constant(json, spec) == nil ? [StyleDiagnostic(path: path, message: "\(spec.type) expected, \(typeName(json)) found")] : []
        }
    }

    /// A property value decoded for `spec`: the constant or the parsed expression, or the
    /// problems with it (the caller falls back to the default).
    static func propertyValue(_ json: JSONValue, _ spec: PropertySpecification, path: String,
                              globalState: [String: ExpressionValue]) -> Result<StyleProperty.Value, DiagnosticList> {
        let isFunction = if case .object = json { true } else { false }
        if isFunction || isExpression(json) {
            if isFunction, spec.propertyType == "constant" {
                return .failure(DiagnosticList([StyleDiagnostic(path: path, message: "property functions not supported")]))
            }
            do {
                return .success(.expression(try StyleExpression(json: json, property: spec, globalState: globalState)))
            } catch {
                return .failure(DiagnosticList(error.errors.map { StyleDiagnostic(path: path + $0.key, message: $0.message) }))
            }
        }
        let problems = constantProblems(json, spec, path: path)
        guard problems.isEmpty, let value = StyleProperty.constant(json, spec) else {
            return .failure(DiagnosticList(problems.isEmpty ? [StyleDiagnostic(path: path, message: "\(spec.type) expected, \(typeName(json)) found")] : problems))
        }
        return .success(.constant(value))
    }
}

/// Diagnostics as an error value.
struct DiagnosticList: Error {
    var items: [StyleDiagnostic]
    init(_ items: [StyleDiagnostic]) { self.items = items }
}
