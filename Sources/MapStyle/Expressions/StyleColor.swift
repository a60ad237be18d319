import Platform

/// An sRGB colour with alpha, each 0 … 1, not premultiplied (the spec's `color` type).
/// MapLibre keeps colours premultiplied; ``premultiplied`` gives that form, which the expression
/// conformance suite prints.
public struct StyleColor: Sendable, Equatable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Red, green and blue multiplied by alpha, then alpha.
    public var premultiplied: [Double] { [red * alpha, green * alpha, blue * alpha, alpha] }

    /// `rgba(r,g,b,a)` with 0 … 255 channels rounded, as `to-string` writes a colour.
    var cssText: String {
        let channels = [red, green, blue].map { JSNumber.string(($0 * 255).rounded(.toNearestOrAwayFromZero)) }
        return "rgba(\(channels.joined(separator: ",")),\(JSNumber.string(alpha)))"
    }

    /// A CSS colour (CSS Color Module Level 4 as MapLibre accepts it, case-insensitive):
    /// `transparent`, the 148 named colours (§6.1), `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`,
    /// `rgb()`/`rgba()` with numbers 0 … 255 or percentages (commas, or spaces with an optional
    /// `/ alpha`), and `hsl()`/`hsla()`. Out-of-range channels are clamped; nil when unparsable.
    public init?(css input: String) {
        let text = input.lowercased().trimmingWhitespace()
        if text == "transparent" { self.init(red: 0, green: 0, blue: 0, alpha: 0); return }
        if let rgb = CSSNamedColors.table[text] {
            self.init(red: Double(rgb >> 16) / 255, green: Double(rgb >> 8 & 0xFF) / 255, blue: Double(rgb & 0xFF) / 255)
            return
        }
        if text.hasPrefix("#") {
            guard let color = Self.hex(text.utf8.dropFirst()) else { return nil }
            self = color
            return
        }
        if text.hasPrefix("rgb"), let args = CSSFunctionArguments(text, names: ["rgb", "rgba"]) {
            let units = args.values[0..<3].map(\.percent)
            guard units.allSatisfy({ $0 == units[0] }) else { return nil }
            let scale = units[0] ? 100.0 : 255.0
            let c = args.values[0..<3].map { min(max($0.number / scale, 0), 1) }
            self.init(red: c[0], green: c[1], blue: c[2], alpha: args.alpha)
            return
        }
        if text.hasPrefix("hsl"), let args = CSSFunctionArguments(text, names: ["hsl", "hsla"]),
           !args.values[0].percent, args.values[1].percent, args.values[2].percent {
            let rgb = ColorSpaces.hslToRGB(hue: args.values[0].number, saturation: min(max(args.values[1].number, 0), 100),
                                           lightness: min(max(args.values[2].number, 0), 100))
            self.init(red: rgb.0, green: rgb.1, blue: rgb.2, alpha: args.alpha)
            return
        }
        return nil
    }

    /// `#` digits: 3, 4, 6 or 8 hex digits.
    private static func hex(_ digits: Substring.UTF8View) -> StyleColor? {
        let values = digits.map { d -> Int? in
            switch d {
            case 0x30...0x39: Int(d - 0x30)
            case 0x61...0x66: Int(d - 0x61 + 10)
            default: nil
            }
        }
        guard [3, 4, 6, 8].contains(values.count), !values.contains(nil) else { return nil }
        let v = values.map { $0! }
        let step = v.count < 6 ? 1 : 2
        func channel(_ i: Int) -> Double {
            guard i * step < v.count else { return 1 }
            return Double(step == 1 ? v[i] * 17 : v[2 * i] * 16 + v[2 * i + 1]) / 255
        }
        return StyleColor(red: channel(0), green: channel(1), blue: channel(2), alpha: channel(3))
    }

    /// Interpolates `from` → `to` at `t` in sRGB, CIE LAB or HCL (spec: `interpolate`,
    /// `interpolate-lab`, `interpolate-hcl`); HCL takes the shorter way round the hue circle.
    public static func interpolate(_ from: StyleColor, _ to: StyleColor, _ t: Double, space: ColorSpace = .rgb) -> StyleColor {
        func mix(_ a: Double, _ b: Double) -> Double { a + t * (b - a) }
        switch space {
        case .rgb:
            return StyleColor(red: mix(from.red, to.red), green: mix(from.green, to.green),
                              blue: mix(from.blue, to.blue), alpha: mix(from.alpha, to.alpha))
        case .lab:
            let a = ColorSpaces.lab(from), b = ColorSpaces.lab(to)
            return ColorSpaces.rgb(lab: (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2)), alpha: mix(from.alpha, to.alpha))
        case .hcl:
            let a = ColorSpaces.hcl(from), b = ColorSpaces.hcl(to)
            var hue: Double, chroma: Double?
            if !a.h.isNaN, !b.h.isNaN {
                var dh = b.h - a.h
                if b.h > a.h, dh > 180 { dh -= 360 } else if b.h < a.h, a.h - b.h > 180 { dh += 360 }
                hue = a.h + t * dh
            } else if !a.h.isNaN {
                hue = a.h
                if b.l == 1 || b.l == 0 { chroma = a.c }
            } else if !b.h.isNaN {
                hue = b.h
                if a.l == 1 || a.l == 0 { chroma = b.c }
            } else {
                hue = .nan
            }
            let c = chroma ?? mix(a.c, b.c)
            let radians = hue.isNaN ? 0 : hue * .pi / 180
            return ColorSpaces.rgb(lab: (mix(a.l, b.l), cos(radians) * c, sin(radians) * c), alpha: mix(from.alpha, to.alpha))
        }
    }

    /// The colour space of an interpolation.
    public enum ColorSpace: Sendable { case rgb, lab, hcl }
}

/// The arguments of `rgb(…)`, `rgba(…)`, `hsl(…)` or `hsla(…)`: three numbers (each maybe a
/// percentage) separated all by commas or all by spaces, then an optional alpha after `,` (comma
/// form) or `/` (space form), a number 0 … 1 or a percentage, clamped.
private struct CSSFunctionArguments {
    struct Number { var number: Double; var percent: Bool }
    var values: [Number] = []
    var alpha = 1.0

    init?(_ text: String, names: [String]) {
        guard let open = text.firstIndex(of: "("), names.contains(String(text[..<open])), text.hasSuffix(")") else { return nil }
        var rest = Substring(text[text.index(after: open)..<text.index(before: text.endIndex)])
        var separators: [Character] = []
        var numbers: [Number] = []
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            let token = rest.prefix { "0123456789.e+-".contains($0) }
            // CSS hue may carry `deg` (hsl's first argument only).
            guard !token.isEmpty, let value = Double(token) else { return nil }
            rest = rest.dropFirst(token.count)
            var percent = false
            if rest.first == "%" { percent = true; rest = rest.dropFirst() }
            if numbers.isEmpty, names[0] == "hsl", rest.hasPrefix("deg") { rest = rest.dropFirst(3) }
            numbers.append(Number(number: value, percent: percent))
            let spaced = rest.first == " " || rest.first == "\t" || rest.first == "\n"
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            if rest.isEmpty { break }
            if rest.first == "," || rest.first == "/" {
                separators.append(rest.first!)
                rest = rest.dropFirst()
            } else if spaced {
                separators.append(" ")
            } else {
                return nil
            }
        }
        let form = String(separators)
        guard [3, 4].contains(numbers.count), numbers.count == separators.count + 1,
              ["  ", "  /", ",,", ",,,"].contains(form) else { return nil }
        values = Array(numbers[0..<3])
        if numbers.count == 4 {
            let a = numbers[3]
            alpha = min(max(a.percent ? a.number / 100 : a.number, 0), 1)
        }
        guard !values.contains(where: { $0.number.isNaN }), !alpha.isNaN else { return nil }
    }
}

extension String {
    /// Without leading and trailing ASCII white space.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
