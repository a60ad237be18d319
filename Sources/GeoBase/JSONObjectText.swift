/// One JSON object's text (RFC 8259 §4), its members in the order they are added: the one JSON
/// writer for output written by hand (``JSONText``'s doc says where), so no command or codec
/// concatenates braces, commas and quotes itself. Keys and strings go through
/// ``JSONText/appendQuoted(_:to:)``, measured quantities through ``JSONNumber``.
package struct JSONObjectText: Sendable {
    private var body = "{"
    private var isEmpty = true

    package init() {}

    /// The finished object, `{…}`.
    package var text: String { body + "}" }

    /// Writes `"key":`, after a comma unless it is the first member.
    private mutating func member(_ key: String) {
        if isEmpty { isEmpty = false } else { body += "," }
        JSONText.appendQuoted(key, to: &body)
        body += ":"
    }

    /// A string member; `null` when `value` is nil.
    package mutating func add(_ key: String, string value: String?) {
        member(key)
        if let value { JSONText.appendQuoted(value, to: &body) } else { body += "null" }
    }

    /// An integer member in decimal; `null` when `value` is nil.
    package mutating func add(_ key: String, integer value: Int?) {
        member(key)
        body += value.map { String($0) } ?? "null"
    }

    /// A measured quantity with its kind's decimals (``JSONNumber/string(_:_:)``); `null` when
    /// absent or not finite.
    package mutating func add(_ key: String, _ value: Double?, _ quantity: JSONNumber.Quantity) {
        member(key)
        body += JSONNumber.string(value, quantity)
    }

    /// A number in Swift's shortest form that reads back to the same `Double` (`description`,
    /// e.g. `1234.5` or `1e-05`), for outputs that promise round-trip precision; `null` when
    /// absent or not finite.
    package mutating func add(_ key: String, roundTrip value: Double?) {
        member(key)
        body += value.flatMap { $0.isFinite ? $0.description : nil } ?? "null"
    }

    /// An object member; `null` when `value` is nil.
    package mutating func add(_ key: String, object value: JSONObjectText?) {
        member(key)
        body += value?.text ?? "null"
    }

    /// An array of objects.
    package mutating func add(_ key: String, objects values: [JSONObjectText]) {
        member(key)
        body += "["
        for (i, value) in values.enumerated() {
            if i > 0 { body += "," }
            body += value.text
        }
        body += "]"
    }

    /// A member whose value is JSON text already (a `Codable` encoding such as GeoJSON's).
    /// - Precondition: `json` is one complete JSON value.
    package mutating func add(_ key: String, json: String) {
        member(key)
        body += json
    }
}
