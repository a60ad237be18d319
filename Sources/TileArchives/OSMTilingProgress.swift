import GeoBase
import GeoCore
import MapData

extension OSMTiling.Progress {
    /// The progress lines of this step, as `geo tiles build` prints them on standard error
    /// after its `geo tiles: ` (no newlines): what reading the extract kept and skipped, with
    /// a warning when the coastline does not close; or a zoom level's tiles and the totals so
    /// far (MB = 10⁶ bytes), out of `maxZoom`, `elapsed` since the build began (seconds, two
    /// decimals).
    public func lines(maxZoom: Int, elapsed: Duration) -> [String] {
        switch self {
        case .read(let s):
            var lines = ["read \(s.nodes) nodes, \(s.ways) ways, \(s.relations) relations → \(s.features) features"
                         + " (skipped: \(s.nodesOutOfRange) nodes with a position out of range, \(s.waysWithMissingNodes) ways with missing nodes,"
                         + " \(s.brokenRelations) broken multipolygons)"]
            if s.brokenCoastlines > 0 {
                lines.append("warning: the coastline does not close (\(s.brokenCoastlines) chains end inside the extract or run the wrong way round): no sea drawn")
            }
            return lines
        case .zoom(let z, let count, let total):
            return [TileZoomProgress.line(zoom: z, maxZoom: maxZoom, tiles: count, totalTiles: total.tiles, totalBytes: total.bytes, elapsed: elapsed)]
        }
    }
}

extension OSMTiling.Report {
    /// The closing lines of `geo tiles build`, printed after its `geo tiles: `: the tiles written
    /// to `output` in `elapsed` (seconds, two decimals), then what generalisation dropped for
    /// size below `maxZoom`.
    public func lines(output: String, maxZoom: Int, elapsed: Duration) -> [String] {
        ["wrote \(output): \(tiles) tiles in \(FixedDecimal.string(elapsed.seconds, decimals: 2)) s", "dropped for size below zoom \(maxZoom): \(drops.summary)"]
    }
}

/// The progress line of a zoom level written by a command that writes tiles (`geo tiles build`,
/// `geo tiles render`), printed after its `geo tiles: ` (and `render `): the zoom out of
/// `maxZoom`, its tiles, the totals so far (MB = 10⁶ bytes), `elapsed` since the command began
/// (seconds, two decimals) — printf's "zoom %2d/%d: %6d tiles, %d total, %.1f MB, %.2f s".
public enum TileZoomProgress {
    public static func line(zoom: Int, maxZoom: Int, tiles: Int, totalTiles: Int, totalBytes: Int, elapsed: Duration) -> String {
        "zoom \(padded(zoom, 2))/\(maxZoom): \(padded(tiles, 6)) tiles, \(totalTiles) total, "
            + "\(FixedDecimal.string(Double(totalBytes) / 1e6, decimals: 1)) MB, \(FixedDecimal.string(elapsed.seconds, decimals: 2)) s"
    }
}

/// `n` right-aligned in `width` characters (printf's `%*d`).
private func padded(_ n: Int, _ width: Int) -> String {
    let digits = String(n)
    return String(repeating: " ", count: max(0, width - digits.count)) + digits
}
