extension UInt8 {
    /// The value of an ASCII hexadecimal digit (`0`–`9`, `A`–`F`, `a`–`f`), nil for another byte.
    @inlinable
    public var hexDigitValue: UInt8? {
        switch self {
        case 0x30...0x39: self - 0x30
        case 0x41...0x46, 0x61...0x66: (self | 0x20) - 0x61 + 10
        default: nil
        }
    }
}

/// Percent-decoding (RFC 3986 §2.1): of URL path segments, and with `+` as a space, of
/// `application/x-www-form-urlencoded` names and values (WHATWG URL §5.1).
public enum PercentDecoding {
    public enum Failure: Error, Sendable, Equatable {
        /// A `%` not followed by two hexadecimal digits.
        case badEscape
        /// Bytes that are not UTF-8 once decoded.
        case notUTF8
    }

    /// `bytes` with each `%XX` replaced by the byte it stands for and, with `plusIsSpace`, each
    /// `+` by a space. `bytes` must be UTF-8 (a String's); so must the result.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) throws(Failure) -> String {
        // Nothing to decode (the usual field or segment).
        if !bytes.contains(where: { $0 == 0x25 || (plusIsSpace && $0 == 0x2B) }) { return String(decoding: bytes, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case 0x2B where plusIsSpace:
                decoded.append(0x20)
            case 0x25:
                guard i + 2 < bytes.count, let high = bytes[i + 1].hexDigitValue, let low = bytes[i + 2].hexDigitValue else { throw .badEscape }
                decoded.append(high << 4 | low)
                i += 2
            case let byte:
                decoded.append(byte)
            }
            i += 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw .notUTF8 }
        return text
    }
}
