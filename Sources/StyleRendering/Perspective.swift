import MapRenderer
import Platform

/// The tilted view of MapLibre GL's camera (its `Transform`): the eye looks at the image's
/// centre from `cameraToCenterDistance` = 0.5 / tan(fov / 2) · height with a vertical field of
/// view of 0.6435 rad (36.87°, so 1.5 · height), pitched `pitch` from straight down, at most 60°
/// (MapLibre's default `maxPitch`). Positions are device pixels relative to the image's centre:
/// on the ground plane drawn from above (x right, y down the screen before tilting) and on the image.
struct Perspective: Sendable {
    /// MapLibre's default largest pitch, degrees.
    static let maxPitch = 60.0
    let sinP: Double, cosP: Double
    /// Eye to the image's centre, device pixels.
    let distance: Double

    /// The largest magnification (1 / w relative to the image's centre) a tilted line or fill
    /// is drawn up to: the parts nearer the eye (far below the image, or behind the eye) are
    /// cut off on the ground first, as GL clips at its near plane.
    static let nearScale = 8.0

    /// The ground offset (device pixels down the screen from the image's centre, before
    /// tilting) at which ``nearScale`` is reached: lines and fills are cut beyond it.
    var nearLimit: Double { (distance - distance / Self.nearScale) / sinP }

    /// The cut at ``nearLimit`` of a closed polygon of `count` corners on the ground, corner
    /// `i` at ground y `y(i)`: Sutherland & Hodgman's clip (1974) against the half-plane
    /// y ≤ `limit`. In the polygon's order, `corner(i)` is called for each corner on that side
    /// and `cut(i, j, t)` where the edge from corner i to the next, j, crosses y = `limit`, at
    /// `t` (0 at i, 1 at j) along it. What those calls make, filled by the even-odd rule,
    /// covers what the polygon covers on that side. (The visitor serves a fill's rings of
    /// points and a line's triangles of indexed vertices with varyings alike.)
    static func clipNear(count: Int, below limit: Double, y: (Int) -> Double,
                         corner: (Int) -> Void, cut: (_ from: Int, _ to: Int, _ t: Double) -> Void) {
        for i in 0..<count {
            let j = i + 1 == count ? 0 : i + 1
            let yi = y(i), yj = y(j)
            if yi <= limit { corner(i) }
            if (yi <= limit) != (yj <= limit) { cut(i, j, (limit - yi) / (yj - yi)) }
        }
    }

    /// Nil for a camera that looks straight down.
    init?(_ camera: StyleCamera) {
        guard camera.pitch > 1e-9 else { return nil }
        self.init(pitch: camera.pitch, imageHeight: camera.pixelHeight)
    }

    /// The view of an image `imageHeight` device pixels high pitched `pitch` degrees (also 0:
    /// what stands up from the ground is still seen in perspective).
    init(pitch: Double, imageHeight: Int) {
        let p = pitch.clamped(0, Self.maxPitch)
        sinP = sin(p * .pi / 180)
        cosP = cos(p * .pi / 180)
        distance = 1.5 * Double(imageHeight)
    }

    /// The image offset of a point `z` device pixels above the ground offset (dx, dy).
    @inline(__always) func project(_ dx: Double, _ dy: Double, _ z: Double) -> Point {
        let s = distance / (distance - dy * sinP - z * cosP)
        return Point(x: dx * s, y: (dy * cosP - z * sinP) * s)
    }

    /// Where the eye's ray through image offset (u, v) meets the plane n · P = c (P: ground
    /// offset and height, device pixels): its distance along the ray in eye distances (the
    /// depth order) and its height; nil when it meets the plane behind the eye or never.
    @inline(__always) func hit(_ u: Double, _ v: Double, normal n: (Double, Double, Double), _ c: Double) -> (depth: Double, z: Double)? {
        let ey = distance * sinP, ez = distance * cosP
        let dy = -distance * sinP + v * cosP, dz = -distance * cosP - v * sinP
        let along = n.0 * u + n.1 * dy + n.2 * dz
        guard abs(along) > 1e-12 else { return nil }
        let s = (c - n.1 * ey - n.2 * ez) / along
        return s > 0 ? (s, ez + s * dz) : nil
    }

    /// How much larger than at the centre a ground length shows at ground offset `dy` (> 1 nearer the eye).
    @inline(__always) func scale(_ dy: Double) -> Double { distance / (distance - dy * sinP) }

    /// The image offset of a ground offset.
    @inline(__always) func project(_ dx: Double, _ dy: Double) -> Point {
        let s = scale(dy)
        return Point(x: dx * s, y: dy * cosP * s)
    }

    /// The ground offset an image offset shows (the image is all ground below 71.6° of pitch).
    @inline(__always) func unproject(_ u: Double, _ v: Double) -> Point {
        let dy = v * distance / (distance * cosP + v * sinP)
        return Point(x: u * (distance - dy * sinP) / distance, y: dy)
    }

    /// The half width and half height (device pixels) of the ground, centred on the image's
    /// centre, that an image `width × height` shows, plus `margin`.
    func groundHalfSize(width: Int, height: Int, margin: Double) -> (Double, Double) {
        let top = unproject(Double(width) / 2, -Double(height) / 2)
        let bottom = unproject(Double(width) / 2, Double(height) / 2)
        return (max(abs(top.x), abs(bottom.x)) + margin, max(abs(top.y), abs(bottom.y)) + margin)
    }

    /// Composites `ground` (drawn from above, the image's centre at its centre) over `image`
    /// as the camera sees it: each pixel averages n × n bilinear samples of the ground, n the
    /// ground pixels one image pixel spans (1 … 4), so far and thin lines are not lost.
    func warp(_ ground: Pixmap, onto image: inout Pixmap) {
        let gw = ground.width, gh = ground.height
        let gcx = Double(gw) / 2, gcy = Double(gh) / 2
        let cx = Double(image.width) / 2, cy = Double(image.height) / 2
        let w = image.width, h = image.height
        let src = ground.bytes
        image.withUnsafeMutableBytes { dst in
            for y in 0..<h {
                let v = Double(y) + 0.5 - cy
                // Ground pixels per image pixel, down and across, at this row.
                let denom = distance * cosP + v * sinP
                let down = distance * distance * cosP / (denom * denom)
                let across = (distance - unproject(0, v).y * sinP) / distance
                let n = min(4, max(1, Int(max(down, across).rounded(.up))))
                let weight = 1 / Double(n * n)
                for x in 0..<w {
                    let u = Double(x) + 0.5 - cx
                    var acc = (0.0, 0.0, 0.0, 0.0)
                    for j in 0..<n {
                        for i in 0..<n {
                            let g = unproject(u + (Double(i) + 0.5) / Double(n) - 0.5, v + (Double(j) + 0.5) / Double(n) - 0.5)
                            let s = Self.bilinear(src, gw, gh, gcx + g.x - 0.5, gcy + g.y - 0.5)
                            acc = (acc.0 + s.0, acc.1 + s.1, acc.2 + s.2, acc.3 + s.3)
                        }
                    }
                    let k = (y * w + x) * 4
                    let a = acc.3 * weight
                    guard a > 0 else { continue }
                    let keep = 1 - a / 255
                    dst[k] = Self.byte(acc.0 * weight + Double(dst[k]) * keep)
                    dst[k + 1] = Self.byte(acc.1 * weight + Double(dst[k + 1]) * keep)
                    dst[k + 2] = Self.byte(acc.2 * weight + Double(dst[k + 2]) * keep)
                    dst[k + 3] = Self.byte(a + Double(dst[k + 3]) * keep)
                }
            }
        }
    }

    /// Premultiplied RGBA (0 … 255) at pixel-index position (x, y), transparent outside.
    @inline(__always) private static func bilinear(_ p: [UInt8], _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> (Double, Double, Double, Double) {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let fx = x - Double(x0), fy = y - Double(y0)
        var out = (0.0, 0.0, 0.0, 0.0)
        @inline(__always) func add(_ xx: Int, _ yy: Int, _ f: Double) {
            guard f > 0, xx >= 0, xx < w, yy >= 0, yy < h else { return }
            let k = (yy * w + xx) * 4
            out = (out.0 + Double(p[k]) * f, out.1 + Double(p[k + 1]) * f, out.2 + Double(p[k + 2]) * f, out.3 + Double(p[k + 3]) * f)
        }
        add(x0, y0, (1 - fx) * (1 - fy))
        add(x0 + 1, y0, fx * (1 - fy))
        add(x0, y0 + 1, (1 - fx) * fy)
        add(x0 + 1, y0 + 1, fx * fy)
        return out
    }

    @inline(__always) private static func byte(_ v: Double) -> UInt8 { UInt8(min(255, max(0, v.rounded()))) }
}
