public import GeoBase
import Platform

/// The fields of a URL query or an `application/x-www-form-urlencoded` body (WHATWG URL
/// Standard §5.1): `name=value` pairs split on `&`, `+` a space, `%XX` a byte; names are
/// matched case-sensitively, the first occurrence wins. `where` names them in errors
/// ("query parameter", "form field").
public struct FormFields: Sendable {
    public private(set) var values: [String: String] = [:]
    let kind: String

    /// Parses `text` (without the leading `?`).
    public init(_ text: Substring, kind: String = "query parameter") throws(TrackingProtocolError) {
        self.kind = kind
        // Walks the UTF-8 bytes (`&` and `=` are ASCII) rather than splitting into arrays: this
        // runs for every OsmAnd request.
        var rest = text
        while !rest.isEmpty {
            let pair: Substring
            if let amp = rest.utf8.firstIndex(of: UInt8(ascii: "&")) {
                pair = rest[..<amp]
                rest = rest[rest.utf8.index(after: amp)...]
            } else {
                pair = rest
                rest = rest[rest.endIndex...]
            }
            if pair.isEmpty { continue }
            let name: String, value: String
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                name = try Self.decoded(pair[..<equals], kind: kind)
                value = try Self.decoded(pair[pair.utf8.index(after: equals)...], kind: kind)
            } else {
                name = try Self.decoded(pair, kind: kind)
                value = ""
            }
            if values[name] == nil { values[name] = value }
        }
    }

    public subscript(_ name: String) -> String? { values[name] }

    /// The first of `names` present and not empty.
    public func first(_ names: String...) -> (name: String, value: String)? {
        for name in names { if let v = values[name], !v.isEmpty { return (name, v) } }
        return nil
    }

    /// The number in the first of `names` present; nil when none is. Refuses text that is not a
    /// finite decimal number.
    public func number(_ names: String...) throws(TrackingProtocolError) -> Double? {
        for name in names {
            guard let text = values[name], !text.isEmpty else { continue }
            guard let value = Double(text.trimmedWhitespace), value.isFinite else {
                throw TrackingProtocolError(.invalidNumber, "'\(text)' is not a finite number", at: "\(kind) '\(name)'")
            }
            return value
        }
        return nil
    }

    func location(_ name: String) -> String { "\(kind) '\(name)'" }

    static func decoded(_ text: Substring, kind: String) throws(TrackingProtocolError) -> String {
        // Nothing to decode (the usual field): the text is already UTF-8.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i != utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if b == UInt8(ascii: "%") {
                let h = utf8.index(after: i)
                guard h != utf8.endIndex, utf8.index(after: h) != utf8.endIndex,
                      let hi = hexValue(utf8[h]), let lo = hexValue(utf8[utf8.index(after: h)]) else {
                    throw TrackingProtocolError(.malformed, "'%' not followed by two hex digits in '\(text.prefix(64))'", at: kind)
                }
                bytes.append(hi << 4 | lo)
                i = utf8.index(after: utf8.index(after: h))
                continue
            } else {
                bytes.append(b)
            }
            i = utf8.index(after: i)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw TrackingProtocolError(.malformed, "not UTF-8 after percent-decoding: '\(text.prefix(64))'", at: kind)
        }
        return string
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    /// Without leading and trailing ASCII spaces, tabs, CR and LF (FoundationEssentials has no
    /// `trimmingCharacters(in:)`).
    var trimmedWhitespace: String {
        // Neither end a space (the usual number): no walk over Characters.
        let isSpaceByte: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if let first = utf8.first, let last = utf8.last, !isSpaceByte(first), !isSpaceByte(last) { return self }
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
