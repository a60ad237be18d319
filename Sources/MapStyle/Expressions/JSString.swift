/// The JavaScript string and array index rules the spec's operators inherit (ECMA-262
/// `String.prototype.indexOf`, `split`, `Array.prototype.slice`): indices are integers after
/// truncation, negative ones count from the end.
enum JSString {
    /// `ToIntegerOrInfinity(index)` made relative to `count` and clamped to 0 … count;
    /// `defaultValue` when the index is absent or NaN.
    static func relativeIndex(_ index: Double?, count: Int, defaultValue: Int) -> Int {
        guard let index, !index.isNaN else { return defaultValue }
        let i = index.rounded(.towardZero)
        if i < 0 { return max(0, count + Int(max(i, -Double(count)))) }
        return Int(min(i, Double(count)))
    }

    /// The items `slice(begin, end)` keeps.
    static func sliceRange(_ begin: Double, _ end: Double?, count: Int) -> Range<Int> {
        let from = relativeIndex(begin, count: count, defaultValue: 0)
        let to = end.map { relativeIndex($0, count: count, defaultValue: 0) } ?? count
        return from..<max(from, to)
    }

    /// Where `needle` first occurs in `text` at or after UTF-16 offset `from`, counted in
    /// code points (as `index-of` reports it); nil when absent.
    static func indexOf(_ text: String, _ needle: String, from: Double) -> Int? {
        let units = Array(text.utf16), pattern = Array(needle.utf16)
        var start = from.isNaN ? 0 : Int(min(max(from.rounded(.towardZero), 0), Double(units.count)))
        while start + pattern.count <= units.count {
            if units[start..<start + pattern.count].elementsEqual(pattern) {
                return String(decoding: units[..<start], as: UTF16.self).unicodeScalars.count
            }
            start += 1
        }
        return nil
    }

    /// `text.split(separator)`: an empty separator splits into UTF-16 units.
    static func split(_ text: String, by separator: String) -> [String] {
        let units = Array(text.utf16), pattern = Array(separator.utf16)
        if pattern.isEmpty { return units.map { String(decoding: [$0], as: UTF16.self) } }
        var parts: [String] = []
        var start = 0, i = 0
        while i + pattern.count <= units.count {
            if units[i..<i + pattern.count].elementsEqual(pattern) {
                parts.append(String(decoding: units[start..<i], as: UTF16.self))
                i += pattern.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(String(decoding: units[start...], as: UTF16.self))
        return parts
    }
}
