/// A position on the image plane, in pixels: x to the right, y down, (0, 0) the top-left corner
/// of the top-left pixel (so pixel (i, j) covers [i, i+1) × [j, j+1)).
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }

    /// Euclidean length of the vector from the origin, pixels.
    public var length: Double { (x * x + y * y).squareRoot() }
    /// The squared length, pixels².
    var lengthSquared: Double { x * x + y * y }

    /// The point `t` of the way from `self` to `other` (0 → self, 1 → other).
    public func interpolated(to other: Point, _ t: Double) -> Point {
        Point(x: x + (other.x - x) * t, y: y + (other.y - y) * t)
    }
}

/// An affine map of the image plane: `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`
/// (the column convention of PostScript and Cairo).
public struct AffineTransform: Hashable, Sendable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// A rotation by `radians`, clockwise on screen (y points down).
    public static func rotation(radians: Double) -> AffineTransform {
        let (s, co) = (sin(radians), cos(radians))
        return AffineTransform(a: co, b: s, c: -s, d: co, tx: 0, ty: 0)
    }

    /// `self` applied first, then `next`.
    public func then(_ next: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: next.a * a + next.c * b, b: next.b * a + next.d * b,
            c: next.a * c + next.c * d, d: next.b * c + next.d * d,
            tx: next.a * tx + next.c * ty + next.tx, ty: next.b * tx + next.d * ty + next.ty)
    }

    public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }
}

import Platform
