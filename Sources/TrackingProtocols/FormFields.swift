public import GeoBase
import Platform

/// The fields of a URL query or an `application/x-www-form-urlencoded` body (WHATWG URL
/// Standard §5.1): `name=value` pairs split on `&`, `+` a space, `%XX` a byte; names are
/// matched case-sensitively, the first occurrence wins. `where` names them in errors
/// ("query parameter", "form field").
public struct FormFields: Sendable {
    /// The pairs in the order they came, decoded. Looked up by a walk, not a dictionary: a
    /// request has a dozen fields, and hashing every name into a growing dictionary was most
    /// of the OsmAnd decoder's time (`perf`, `tracking.sh` 8,000 devices: `FormFields.init`
    /// 58 % of `OsmAnd.decode`, hashing a fifth of it).
    private var pairs: [(name: String, value: String)] = []
    let kind: String

    /// More fields than this are refused (PHP's `max_input_vars` default): OsmAnd sends about
    /// ten, and a 5 MiB body of `a&a&…` would otherwise keep 2.6 million pairs, 32 bytes each.
    public static let maximumFields = 1000

    /// Parses `text` (without the leading `?`).
    public init(_ text: Substring, kind: String = "query parameter") throws(TrackingProtocolError) {
        self.kind = kind
        var text = text
        // One walk over the contiguous UTF-8 bytes (`&`, `=`, `+` and `%` are ASCII).
        let scanned: Result<[(name: String, value: String)], TrackingProtocolError> = text.withUTF8 { bytes in
            var pairs: [(name: String, value: String)] = []
            pairs.reserveCapacity(12)
            var start = 0
            while start < bytes.count {
                var end = start, equals = -1
                while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                    if equals < 0, bytes[end] == UInt8(ascii: "=") { equals = end }
                    end += 1
                }
                if end > start {
                    guard pairs.count < Self.maximumFields else {
                        return .failure(TrackingProtocolError(.malformed, "more than \(Self.maximumFields) fields", at: kind))
                    }
                    do throws(TrackingProtocolError) {
                        let name = try Self.decoded(UnsafeBufferPointer(rebasing: bytes[start..<(equals < 0 ? end : equals)]), kind: kind)
                        let value = equals < 0 ? "" : try Self.decoded(UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end]), kind: kind)
                        pairs.append((name, value))
                    } catch {
                        return .failure(error)
                    }
                }
                start = end + 1
            }
            return .success(pairs)
        }
        pairs = try scanned.get()
    }

    /// The value of the first field named `name` (the first occurrence wins).
    public subscript(_ name: String) -> String? {
        for pair in pairs where pair.name == name { return pair.value }
        return nil
    }

    /// The first of `names` present and not empty.
    public func first(_ names: String...) -> (name: String, value: String)? {
        for name in names { if let v = self[name], !v.isEmpty { return (name, v) } }
        return nil
    }

    /// The number in the first of `names` present; nil when none is. Refuses text that is not a
    /// finite decimal number.
    public func number(_ names: String...) throws(TrackingProtocolError) -> Double? {
        for name in names {
            guard let text = self[name], !text.isEmpty else { continue }
            guard let value = Double(text.trimmedWhitespace), value.isFinite else {
                throw TrackingProtocolError(.invalidNumber, "'\(text)' is not a finite number", at: location(name))
            }
            return value
        }
        return nil
    }

    func location(_ name: String) -> String { "\(kind) '\(name)'" }

    /// A name or value decoded: `+` a space, `%XX` a byte (`PercentDecoding`).
    static func decoded(_ bytes: UnsafeBufferPointer<UInt8>, kind: String) throws(TrackingProtocolError) -> String {
        do {
            return try PercentDecoding.decode(bytes, plusIsSpace: true)
        } catch {
            switch error {
            case .badEscape: throw TrackingProtocolError(.malformed, "'%' not followed by two hex digits in '\(excerpt(bytes))'", at: kind)
            case .notUTF8: throw TrackingProtocolError(.malformed, "not UTF-8 after percent-decoding: '\(excerpt(bytes))'", at: kind)
            }
        }
    }

    /// The first 64 characters of a field, for an error message.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> Substring { String(decoding: bytes, as: UTF8.self).prefix(64) }
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
