/// An sRGB colour with straight (not premultiplied) alpha, 8 bits per channel.
public struct Color: Hashable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// A colour from a `0xRRGGBB` literal, opaque, or `0xRRGGBBAA` when `alpha` is nil.
    public init(hex: UInt32, alpha: UInt8 = 255) {
        self.init(red: UInt8(hex >> 16 & 0xFF), green: UInt8(hex >> 8 & 0xFF), blue: UInt8(hex & 0xFF), alpha: alpha)
    }

    /// The same colour with its alpha multiplied by `opacity` (0…1).
    public func withOpacity(_ opacity: Double) -> Color {
        var c = self
        c.alpha = UInt8((Double(alpha) * min(max(opacity, 0), 1)).rounded())
        return c
    }

    /// The colour `fraction` (0…1) of the way to `other`, channel by channel.
    public func mixed(with other: Color, _ fraction: Double) -> Color {
        let t = min(max(fraction, 0), 1)
        func m(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return Color(red: m(red, other.red), green: m(green, other.green), blue: m(blue, other.blue), alpha: m(alpha, other.alpha))
    }

    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 255, green: 255, blue: 255)
    public static let transparent = Color(red: 0, green: 0, blue: 0, alpha: 0)
}
