import GeoBase
/// JavaScript's `Number.prototype.toString` (ECMA-262 §6.1.6.1.20): the shortest digits that
/// round-trip, positional from 10⁻⁶ up to 10²¹ and exponential (`1e+21`, `1.5e-7`) outside.
/// The spec's `to-string` and `concat` write numbers this way.
enum JSNumber {
    static func string(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        let (digitValues, n) = decimalDigits(value.magnitude)
        let digits = digitValues.map { Character(String($0)) }
        let k = digits.count
        var out: String
        if k <= n, n <= 21 {
            out = String(digits) + String(repeating: "0", count: n - k)
        } else if 0 < n, n <= 21 {
            out = String(digits[..<n]) + "." + String(digits[n...])
        } else if -6 < n, n <= 0 {
            out = "0." + String(repeating: "0", count: -n) + String(digits)
        } else {
            let e = n - 1
            out = String(digits[0]) + (k > 1 ? "." + String(digits[1...]) : "") + "e" + (e < 0 ? "-" : "+") + String(abs(e))
        }
        return value < 0 ? "-" + out : out
    }

    /// The shortest round-trip decimal digits of a finite positive number, without leading or
    /// trailing zeros, and where the point goes: value = 0.d₁d₂… × 10^point.
    static func decimalDigits(_ value: Double) -> (digits: [UInt8], point: Int) {
        // Swift's description is the shortest round-trip form (Errol / Ryū-style); re-read it.
        let text = value.magnitude.description
        let parts = text.split(separator: "e")
        let mantissa = parts[0]
        let exponent = parts.count > 1 ? Int(parts[1])! : 0
        let dot = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        var digits = mantissa.compactMap { $0.wholeNumberValue.map(UInt8.init) }
        var point = dot + exponent
        while digits.count > 1, digits.first == 0 { digits.removeFirst(); point -= 1 }
        while digits.count > 1, digits.last == 0 { digits.removeLast() }
        return (digits, point)
    }
}

/// JSON text of expression values as MapLibre writes them (`JSON.stringify`): non-finite numbers
/// as `null`; composite style values as the objects MapLibre's classes serialise to.
enum ExpressionJSON {
    /// The value's JSON; a colour is MapLibre's premultiplied `{"r","g","b","a"}` object.
    static func text(_ value: ExpressionValue) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    static func write(_ value: ExpressionValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .boolean(let b): out += b ? "true" : "false"
        case .number(let n): out += n.isFinite ? JSNumber.string(n) : "null"
        case .string(let s): JSONText.appendQuoted(s, to: &out)
        case .array(let items): array(items, to: &out)
        case .object(let members): object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, to: &out)
        default: write(plain(value), to: &out)
        }
    }

    /// The value with every style type replaced by the JSON object MapLibre's class
    /// serialises to (`{"r","g","b","a"}` premultiplied, `{"sections": …}`, `{"values": …}`, …).
    static func plain(_ value: ExpressionValue) -> ExpressionValue {
        switch value {
        case .null, .boolean, .number, .string: return value
        case .array(let items): return .array(items.map(plain))
        case .object(let members): return .object(members.mapValues(plain))
        case .color(let c):
            let p = c.premultiplied
            return .object(["r": .number(p[0]), "g": .number(p[1]), "b": .number(p[2]), "a": .number(p[3])])
        case .collator(let c):
            return .object(["locale": c.locale.map(ExpressionValue.string) ?? .null, "sensitivity": .string(c.sensitivity.rawValue)])
        case .formatted(let f):
            let sections = f.sections.map { s -> ExpressionValue in
                .object([
                    "text": .string(s.text), "image": s.image.map { plain(.resolvedImage($0)) } ?? .null,
                    "scale": s.scale.map(ExpressionValue.number) ?? .null, "fontStack": s.fontStack.map(ExpressionValue.string) ?? .null,
                    "textColor": s.textColor.map { plain(.color($0)) } ?? .null,
                    "verticalAlign": s.verticalAlign.map(ExpressionValue.string) ?? .null,
                ])
            }
            return .object(["sections": .array(sections)])
        case .resolvedImage(let image): return .object(["name": .string(image.name), "available": .boolean(image.available)])
        case .padding(let v), .numberArray(let v): return .object(["values": .array(v.map(ExpressionValue.number))])
        case .colorArray(let colors): return .object(["values": .array(colors.map { plain(.color($0)) })])
        case .variableAnchorOffsetCollection(let v): return .object(["values": .array(v)])
        case .projectionDefinition(let p):
            return .object(["from": .string(p.from), "to": .string(p.to), "transition": .number(p.transition)])
        }
    }

    private static func array(_ items: [ExpressionValue], to out: inout String) {
        out += "["
        for (i, item) in items.enumerated() {
            if i > 0 { out += "," }
            write(item, to: &out)
        }
        out += "]"
    }

    private static func object(_ members: [(String, ExpressionValue)], to out: inout String) {
        out += "{"
        for (i, (key, value)) in members.enumerated() {
            if i > 0 { out += "," }
            JSONText.appendQuoted(key, to: &out)
            out += ":"
            write(value, to: &out)
        }
        out += "}"
    }

}
