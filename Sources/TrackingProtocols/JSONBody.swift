import GeoBase
import Platform
import GeoCore

/// A JSON body parsed after a depth check (so that `[[[[…` cannot exhaust the stack), with
/// accessors that name the JSON path of what is missing or wrong.
struct JSONBody {
    /// Parses `bytes`: size and depth first, then syntax.
    static func parse(_ bytes: [UInt8], rules: DecodingRules) throws(TrackingProtocolError) -> JSONValue {
        try rules.checkSize(bytes)
        var depth = 0, inString = false, escaped = false
        for (offset, b) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if b == 0x5c { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x5b, 0x7b:
                depth += 1
                guard depth <= rules.maximumJSONDepth else {
                    throw TrackingProtocolError(.tooDeep, "more than \(rules.maximumJSONDepth) nested arrays or objects", at: "byte \(offset)")
                }
            case 0x5d, 0x7d: depth -= 1
            default: break
            }
        }
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw TrackingProtocolError(.malformed, "not JSON", at: "line \(error.line), column \(error.column)")
        }
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// A number, or a string holding one (OwnTracks' early apps sent strings); nil when absent
    /// or null; throws for anything else or a non-finite value.
    func number(_ key: String, at path: String) throws(TrackingProtocolError) -> Double? {
        switch self[key] {
        case nil, .null?: return nil
        case .number(let n)?:
            guard n.isFinite else { throw TrackingProtocolError(.invalidNumber, "\(n) is not finite", at: "\(path).\(key)") }
            return n
        case .string(let s)?:
            guard let n = Double(s), n.isFinite else { throw TrackingProtocolError(.invalidNumber, "'\(s)' is not a finite number", at: "\(path).\(key)") }
            return n
        default:
            throw TrackingProtocolError(.invalidNumber, "not a number", at: "\(path).\(key)")
        }
    }

    func requiredNumber(_ key: String, at path: String) throws(TrackingProtocolError) -> Double {
        guard let n = try number(key, at: path) else { throw TrackingProtocolError(.missingField, "no '\(key)'", at: path) }
        return n
    }

    func string(_ key: String) -> String? {
        if case .string(let s)? = self[key] { return s }
        if case .number(let n)? = self[key], n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return nil
    }
}
