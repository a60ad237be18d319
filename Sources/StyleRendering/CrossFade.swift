/// The cross-fade of a still frame between two values of a zoom-dependent pattern property
/// (`line-dasharray`, `*-pattern`; spec v8 "property-type": "cross-faded"), as MapLibre GL JS
/// sets it up (`CrossFadedProperty` and `EvaluationParameters.getCrossfadeParameters`) once
/// the fade is over: the camera zoom's value is drawn alone, scaled 1; the other value is the
/// one at the zoom below (scaled 2) when the camera is past an integer zoom, else the one at
/// the zoom above (scaled ½), because a camera that never moved counts its own integer zoom
/// as the last one crossed.
struct CrossFade {
    /// The zoom whose value the fade starts from.
    let fromZoom: Double
    /// How much the starting value's pattern is stretched along the line.
    let fromScale: Double

    init(zoom: Double) {
        if zoom > zoom.rounded(.down) {
            fromZoom = zoom - 1; fromScale = 2
        } else {
            fromZoom = zoom + 1; fromScale = 0.5
        }
    }

    /// The shorter of the two patterns once scaled, in the patterns' unit: what MapLibre's
    /// `line_sdf` smoothing (`u_sdfgamma`) divides by.
    func shorterLength(from: Double, to: Double) -> Double {
        let scaled = from * fromScale
        return scaled > 0 ? min(scaled, to) : to
    }
}
