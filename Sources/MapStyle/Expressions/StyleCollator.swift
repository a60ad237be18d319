import Foundation

/// A locale-aware string comparison (spec: `collator`), after the Unicode Collation Algorithm
/// (UTS #10) in three levels: base letters (primary), diacritics (secondary, when
/// `diacritic-sensitive`), case with lower before upper (tertiary, when `case-sensitive`).
/// Letters are compared by code point after canonical decomposition (NFD), not by the DUCET
/// table; the tailorings of CLDR's search collations for Swedish and Finnish (å, ä, ö after z)
/// and German (ä, ö, ü as ae, oe, ue) are applied.
public struct StyleCollator: Sendable, Equatable {
    /// ICU's name for the levels compared: `base`, `accent`, `case` or `variant`.
    public enum Sensitivity: String, Sendable { case base, accent, `case`, variant }

    public var caseSensitive: Bool
    public var diacriticSensitive: Bool
    /// BCP 47 tag; nil for the default.
    public var locale: String?

    public var sensitivity: Sensitivity {
        caseSensitive ? (diacriticSensitive ? .variant : .case) : (diacriticSensitive ? .accent : .base)
    }

    /// The locale the collator uses: the requested one when its language is known, else `en`.
    public var resolvedLocale: String {
        guard let locale, let language = locale.split(separator: "-").first, language.count == 2 || language.count == 3 else { return "en" }
        return locale
    }

    private var language: String { String(resolvedLocale.split(separator: "-").first ?? "en").lowercased() }

    /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`.
    public func compare(_ lhs: String, _ rhs: String) -> Int {
        let a = elements(lhs), b = elements(rhs)
        if let order = Self.order(a.map(\.primary), b.map(\.primary)) { return order }
        if diacriticSensitive, let order = Self.order(a.map(\.secondary), b.map(\.secondary)) { return order }
        if caseSensitive, let order = Self.order(a.map(\.tertiary), b.map(\.tertiary)) { return order }
        return 0
    }

    private static func order(_ a: [UInt32], _ b: [UInt32]) -> Int? {
        if a == b { return nil }
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }

    /// One collation element per base character: its primary weight, a secondary weight from
    /// its combining marks, a tertiary weight 1 for upper case.
    private struct Element { var primary: UInt32, secondary: UInt32, tertiary: UInt32 }

    private func elements(_ text: String) -> [Element] {
        var out: [Element] = []
        for character in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            if character.properties.canonicalCombiningClass != .notReordered, !out.isEmpty {
                out[out.count - 1].secondary = out[out.count - 1].secondary &* 31 &+ character.value
                continue
            }
            let lower = character.properties.lowercaseMapping.unicodeScalars.first ?? character
            out.append(Element(primary: lower.value, secondary: 0, tertiary: character.properties.isUppercase ? 1 : 0))
        }
        return tailored(out)
    }

    /// The language's search-collation tailoring over the elements.
    private func tailored(_ elements: [Element]) -> [Element] {
        let a = UInt32(0x61), o = UInt32(0x6F), u = UInt32(0x75), e = UInt32(0x65), z = UInt32(0x7A)
        let ring = UInt32(0x30A), diaeresis = UInt32(0x308)
        switch language {
        case "sv", "fi":
            return elements.map { el in
                var el = el
                switch (el.primary, el.secondary) {
                case (a, ring): el.primary = z + 1
                case (a, diaeresis): el.primary = z + 2
                case (o, diaeresis): el.primary = z + 3
                default: return el
                }
                el.secondary = 0
                return el
            }
        case "de":
            return elements.flatMap { el -> [Element] in
                guard el.secondary == diaeresis, [a, o, u].contains(el.primary) else { return [el] }
                return [Element(primary: el.primary, secondary: 0, tertiary: el.tertiary), Element(primary: e, secondary: 0, tertiary: 0)]
            }
        default:
            return elements
        }
    }
}
