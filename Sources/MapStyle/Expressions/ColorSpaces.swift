import Platform

/// Conversions between sRGB and CIE LAB / HCL under the D50 white point (CSS Color Module
/// Level 4 §9 and §17, the sRGB↔XYZ-D50 matrices Bradford-adapted), which
/// `interpolate-lab` and `interpolate-hcl` interpolate in; and HSL → sRGB (§7.1).
enum ColorSpaces {
    /// D50 reference white X and Z (Y = 1).
    private static let whiteX = 0.96422, whiteZ = 0.82521
    private static let t0 = 4.0 / 29, t1 = 6.0 / 29, t2 = 3 * t1 * t1, t3 = t1 * t1 * t1

    /// L* 0 … 100, a*, b* of a colour (alpha aside).
    static func lab(_ c: StyleColor) -> (Double, Double, Double) {
        let r = linear(c.red), g = linear(c.green), b = linear(c.blue)
        let y = labCurve(0.2225045 * r + 0.7168786 * g + 0.0606169 * b)
        let x: Double, z: Double
        if r == g, g == b {
            x = y
            z = y
        } else {
            x = labCurve((0.4360747 * r + 0.3850649 * g + 0.1430804 * b) / whiteX)
            z = labCurve((0.0139322 * r + 0.0971045 * g + 0.7141733 * b) / whiteZ)
        }
        let l = 116 * y - 16
        return (max(l, 0), 500 * (x - y), 200 * (y - z))
    }

    /// Hue in degrees 0 ..< 360 (NaN for a grey, chroma under 0.00005), chroma, lightness.
    static func hcl(_ c: StyleColor) -> (h: Double, c: Double, l: Double) {
        let (l, a, b) = lab(c)
        let chroma = (a * a + b * b).squareRoot()
        let hue = (chroma * 10000).rounded(.toNearestOrAwayFromZero) != 0 ? positiveDegrees(atan2(b, a) * 180 / .pi) : .nan
        return (hue, chroma, l)
    }

    /// The sRGB colour of L*a*b*, each channel clipped to 0 … 1.
    static func rgb(lab: (Double, Double, Double), alpha: Double) -> StyleColor {
        let (l, a, b) = lab
        var y = (l + 16) / 116
        var x = a.isNaN ? y : y + a / 500
        var z = b.isNaN ? y : y - b / 200
        y = inverseLabCurve(y)
        x = whiteX * inverseLabCurve(x)
        z = whiteZ * inverseLabCurve(z)
        return StyleColor(red: gamma(3.1338561 * x - 1.6168667 * y - 0.4906146 * z),
                          green: gamma(-0.9787684 * x + 1.9161415 * y + 0.033454 * z),
                          blue: gamma(0.0719453 * x - 0.2289914 * y + 1.4052427 * z), alpha: alpha)
    }

    /// HSL (hue in degrees, saturation and lightness in percent) → sRGB 0 … 1.
    static func hslToRGB(hue: Double, saturation: Double, lightness: Double) -> (Double, Double, Double) {
        let h = positiveDegrees(hue), s = saturation / 100, l = lightness / 100
        func f(_ n: Double) -> Double {
            let k = (n + h / 30).truncatingRemainder(dividingBy: 12)
            let a = s * min(l, 1 - l)
            return l - a * max(-1, min(k - 3, 9 - k, 1))
        }
        return (f(0), f(8), f(4))
    }

    private static func positiveDegrees(_ angle: Double) -> Double {
        let a = angle.truncatingRemainder(dividingBy: 360)
        return a < 0 ? a + 360 : a
    }

    private static func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    private static func gamma(_ v: Double) -> Double {
        let x = v <= 0.00304 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
        return min(max(x, 0), 1)
    }
    private static func labCurve(_ t: Double) -> Double { t > t3 ? pow(t, 1.0 / 3) : t / t2 + t0 }
    private static func inverseLabCurve(_ t: Double) -> Double { t > t1 ? t * t * t : t2 * (t - t0) }
}
