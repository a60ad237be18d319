import GeoCore
import MapData
import Testing
@testable import TileArchives

/// The report lines of `geo tiles build`, written out by hand from their printf formats.
@Suite struct TilingReportTests {
    /// Drops per layer: the total, then the layers largest first, equal counts in layer order.
    @Test func generalisationDrops_summary_listsLayersLargestFirst() {
        var drops = GeneralisationDrops()
        #expect(drops.summary == "0 features under 4 px² or 1 px (counted per zoom), 0 merged areas under 4 px² (counted per tile)")
        drops.features = [.water: 5, .transportation: 97, .park: 2, .building: 2]
        drops.mergedAreas = [.building: 70]
        #expect(GeneralisationDrops.perLayer(drops.features) == "106 (transportation 97, water 5, park 2, building 2)")
        #expect(drops.summary.hasSuffix("features under 4 px² or 1 px (counted per zoom), 70 (building 70) merged areas under 4 px² (counted per tile)"))
    }

    /// A read step says what was kept and skipped, with a warning for an open coastline; a zoom
    /// step is printf's "zoom %2d/%d: %6d tiles, %d total, %.1f MB, %.2f s" (2.34 MB → 2.3,
    /// 1.005 s → 1.00 as the double below 1.005 rounds).
    @Test func progress_lines() {
        var statistics = MapExtractionStatistics()
        (statistics.nodes, statistics.ways, statistics.relations, statistics.features) = (2079, 587, 5, 846)
        (statistics.nodesOutOfRange, statistics.waysWithMissingNodes, statistics.brokenRelations) = (1, 2, 3)
        #expect(OSMTiling.Progress.read(statistics).lines(maxZoom: 14, elapsed: .zero) == [
            "read 2079 nodes, 587 ways, 5 relations → 846 features (skipped: 1 nodes with a position out of range, 2 ways with missing nodes, 3 broken multipolygons)",
        ])
        statistics.brokenCoastlines = 4
        let lines = OSMTiling.Progress.read(statistics).lines(maxZoom: 14, elapsed: .zero)
        #expect(lines.count == 2)
        #expect(lines.last == "warning: the coastline does not close (4 chains end inside the extract or run the wrong way round): no sea drawn")
        var total = OSMTiling.Report()
        (total.tiles, total.bytes) = (17, 2_340_000)
        #expect(OSMTiling.Progress.zoom(7, tiles: 1, total: total).lines(maxZoom: 14, elapsed: .milliseconds(1005)) == [
            "zoom  7/14:      1 tiles, 17 total, 2.3 MB, 1.00 s",
        ])
        #expect(OSMTiling.Progress.zoom(14, tiles: 1_234_567, total: total).lines(maxZoom: 14, elapsed: .seconds(125.5)) == [
            "zoom 14/14: 1234567 tiles, 17 total, 2.3 MB, 125.50 s",
        ])
        // The same line for geo tiles render's zooms (printf "%.1f" of 3.449999 MB is 3.4).
        #expect(TileZoomProgress.line(zoom: 15, maxZoom: 17, tiles: 112, totalTiles: 140, totalBytes: 3_449_999, elapsed: .seconds(15.1))
                == "zoom 15/17:    112 tiles, 140 total, 3.4 MB, 15.10 s")
    }
}
