import Foundation

/// A picture of one report: loudness over time, the beat grid with bar lines, section bands with
/// their repetition labels and functions, the key timeline, instrument activity lanes, the pace
/// curve, a time axis, a legend and the headline values — as one SVG, or one self-contained HTML
/// page (the same SVG inline; no scripts, no network, no fonts but the viewer's sans-serif).
///
/// Geometry is fixed and public (``Layout``, ``x(_:)``, ``lane(_:)``), so a test can find each
/// lane in the picture. Long inputs are aggregated to the pixel: loudness and activity curves keep
/// the maximum of each pixel column, beat lines are drawn only when at least
/// ``Layout/minimumLineSpacing`` pixels apart, and bar lines are thinned to every 2nd, 4th, 8th …
/// bar until they are (a 1-hour mix draws a few hundred lines, not 50,000).
public struct ReportPlot: Sendable {
    /// The horizontal bands of the picture, top to bottom.
    public enum Lane: String, Sendable, CaseIterable {
        /// Loudness curve, beat grid, section bands, key ranges, the four instrument lanes,
        /// pace, and the time axis.
        case loudness, beats, sections, key, vocal, drum, bass, other, pace, axis
    }

    /// Sizes in pixels (SVG user units).
    public struct Layout: Sendable {
        /// Width of the picture.
        public var width: Double = 1200
        /// Left margin, where the lane names are.
        public var left: Double = 120
        /// Right margin.
        public var right: Double = 24
        /// Height of the heading (title and headline values).
        public var header: Double = 78
        /// Space between lanes.
        public var gap: Double = 6
        /// Height of the legend under the axis.
        public var legend: Double = 44
        /// Minimum distance between drawn beat or bar lines.
        public var minimumLineSpacing: Double = 4
        /// Height of each lane.
        public var heights: [Lane: Double] = [
            .loudness: 110, .beats: 34, .sections: 36, .key: 28,
            .vocal: 22, .drum: 22, .bass: 22, .other: 22, .pace: 64, .axis: 24,
        ]
        /// Width of the plotting area.
        public var plotWidth: Double { width - left - right }
        /// Creates the default layout.
        public init() {}
    }

    /// The colours, as `#rrggbb`.
    public enum Palette {
        /// The page.
        public static let background = "#ffffff"
        /// Behind each lane.
        public static let laneBackground = "#f1f2f4"
        /// The short-term loudness curve.
        public static let loudness = "#4f7cba"
        /// The integrated loudness line.
        public static let integrated = "#c8372d"
        /// Bar lines.
        public static let bar = "#1f2430"
        /// Beat ticks.
        public static let beat = "#9aa0aa"
        /// The pace curve.
        public static let pace = "#3d3f45"
        /// The local tempo curve in the beat lane.
        public static let tempo = "#b8860b"
        /// Under the pace curve.
        public static let paceFill = "#c9ccd3"
        /// Section bands by repetition label: A, B, C, ... (then round again).
        public static let sections = ["#8dd3c7", "#fdd66b", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5"]
        /// Instrument lanes.
        public static let instruments: [InstrumentActivityResult.Instrument: String] =
            [.vocal: "#d62d7f", .drum: "#d95f02", .bass: "#1b9e77", .other: "#7570b3"]
        /// An instrument range is its colour mixed this far towards white; the intensity curve is drawn over it in full colour.
        public static let rangeTint = 0.6
    }

    /// The report drawn.
    public let report: Report
    /// The geometry.
    public let layout: Layout
    /// Seconds shown (the source's duration, else the end of the last result).
    public let duration: Double

    /// A plot of `report` with `layout`.
    public init(report: Report, layout: Layout = Layout()) {
        self.report = report
        self.layout = layout
        let r = report.result
        let ends: [Double?] = [
            report.source.duration, r?.loudness?.shortTerm.last?.time, r?.rhythm?.beats.last,
            r?.key?.ranges.last?.range.end, r?.structure?.sections.last?.end, r?.pace?.ranges.last?.range.end,
        ]
        let known = ends.compactMap { $0 }.filter { $0.isFinite && $0 > 0 }
        duration = report.source.duration.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? known.max() ?? 1
    }

    /// The x coordinate of time `t` (seconds).
    public func x(_ t: Double) -> Double {
        layout.left + min(max(t / duration, 0), 1) * layout.plotWidth
    }

    /// The top and height of a lane.
    public func lane(_ lane: Lane) -> (top: Double, height: Double) {
        var y = layout.header
        for l in Lane.allCases {
            let h = layout.heights[l] ?? 0
            if l == lane { return (y, h) }
            y += h + layout.gap
        }
        return (y, 0)
    }

    /// Height of the whole picture.
    public var height: Double {
        let axis = lane(.axis)
        return axis.top + axis.height + layout.gap + layout.legend
    }

    /// Every how many bars a bar line is drawn (1, 2, 4, 8, …) so that drawn lines stand at least
    /// ``Layout/minimumLineSpacing`` apart.
    public var barStride: Int {
        guard let bars = report.result?.rhythm?.bars, bars.count > 1 else { return 1 }
        let spacing = layout.plotWidth * (bars[bars.count - 1] - bars[0]) / Double(bars.count - 1) / duration
        var stride = 1
        while spacing * Double(stride) < layout.minimumLineSpacing && stride < 1 << 20 { stride *= 2 }
        return stride
    }

    /// Whether individual beats are drawn (they stand at least ``Layout/minimumLineSpacing`` apart).
    public var drawsBeats: Bool {
        guard let beats = report.result?.rhythm?.beats, beats.count > 1 else { return false }
        return layout.plotWidth * (beats[beats.count - 1] - beats[0]) / Double(beats.count - 1) / duration >= layout.minimumLineSpacing
    }

    // MARK: - Output

    /// The picture as a standalone SVG document.
    public func svg() -> String {
        var s = SVGText()
        s.open(
            "svg",
            [
                "xmlns": "http://www.w3.org/2000/svg", "width": fmt(layout.width), "height": fmt(height),
                "viewBox": "0 0 \(fmt(layout.width)) \(fmt(height))", "font-family": "sans-serif", "font-size": "12",
                "data-left": fmt(layout.left), "data-plot-width": fmt(layout.plotWidth), "data-duration": "\(duration)",
            ])
        s.element("title", text: "Cadenza: \(report.source.path)")
        s.element("rect", ["x": "0", "y": "0", "width": fmt(layout.width), "height": fmt(height), "fill": Palette.background])
        drawHeader(&s)
        if let error = report.error {
            s.element("text", ["x": fmt(layout.left), "y": fmt(layout.header + 20), "fill": Palette.integrated], text: "error: \(error.message)")
        }
        for l in Lane.allCases { drawLane(l, into: &s) }
        drawLegend(&s)
        s.close("svg")
        return s.text
    }

    /// A self-contained HTML page: the SVG inline, the headline values as text, nothing fetched.
    public func html() -> String { Self.page([self]) }

    /// Zoom factors the HTML page offers.
    static let zoomLevels = [2, 4, 8]

    /// A self-contained HTML page of several plots, one under the other, with zoom links
    /// (2×, 4×, 8× wider, scrolled sideways) done in CSS alone (`:target`): no scripts, nothing fetched.
    public static func page(_ plots: [ReportPlot]) -> String {
        let width = plots.map(\.layout.width).max() ?? Layout().width
        let left = Int(plots.first?.layout.left ?? Layout().left)
        let title =
            plots.count == 1
            ? SVGText.escape(((plots.first?.report.source.path ?? "") as NSString).lastPathComponent)
            : "\(plots.count) reports"
        let zoomCSS = zoomLevels.map { "#zoom\($0):target ~ .plots svg { width: \(Int(width) * $0)px; height: auto; }" }.joined(separator: "\n")
        let anchors = zoomLevels.map { #"<span id="zoom\#($0)"></span>"# }.joined()
        let links = (["<a href=\"#\">1×</a>"] + zoomLevels.map { "<a href=\"#zoom\($0)\">\($0)×</a>" }).joined(separator: " ")
        let body = plots.map { plot in
            "<section>\n\(plot.svg())\n<p class=\"note\">\(SVGText.escape(plot.notes))</p>\n</section>"
        }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(title) — Cadenza</title>
            <style>
            html, body { margin: 0; padding: 0; background: \(Palette.background); font-family: sans-serif; }
            svg { display: block; }
            nav { margin: 8px \(left)px; font-size: 12px; color: #555; }
            .plots { overflow-x: auto; }
            p.note { margin: 8px \(left)px; color: #555; font-size: 12px; max-width: \(Int(width) - 2 * left)px; }
            \(zoomCSS)
            </style>
            </head>
            <body>
            \(anchors)
            <nav>Zoom: \(links)</nav>
            <div class="plots">
            \(body)
            </div>
            </body>
            </html>

            """
    }

    /// Several plots as one SVG document, stacked top to bottom.
    public static func stackedSVG(_ plots: [ReportPlot]) -> String {
        guard plots.count > 1 else { return plots.first?.svg() ?? ReportPlot(report: Report(path: "-", error: AnalysisError.cancelled)).svg() }
        let width = plots.map(\.layout.width).max() ?? Layout().width
        let height = plots.reduce(0) { $0 + $1.height }
        var s = SVGText()
        s.open(
            "svg",
            ["xmlns": "http://www.w3.org/2000/svg", "width": fmt(width), "height": fmt(height), "viewBox": "0 0 \(fmt(width)) \(fmt(height))"])
        var y = 0.0
        for plot in plots {
            // Each plot is a nested SVG document placed at its offset (the XML declaration-free body).
            s.raw(plot.svg().replacingOccurrences(of: "<svg ", with: "<svg x=\"0\" y=\"\(fmt(y))\" ", options: .anchored))
            y += plot.height
        }
        s.close("svg")
        return s.text
    }

    /// What the picture leaves out, in words.
    var notes: String {
        var parts = ["\(report.source.path), \(Self.clock(duration)) analysed by Cadenza."]
        if let r = report.result?.rhythm, !r.beats.isEmpty {
            parts.append("\(r.beats.count) beats, \(r.bars.count) bars" + (drawsBeats ? "." : "; beats too dense to draw, bar lines every \(barStride) bars."))
        }
        if let warning = report.warning { parts.append("Warning: \(warning)") }
        return parts.joined(separator: " ")
    }

    // MARK: - Drawing

    private func drawHeader(_ s: inout SVGText) {
        let h = ReportHeadline(report)
        s.element(
            "text", ["x": "16", "y": "28", "font-size": "18", "font-weight": "bold", "fill": Palette.bar],
            text: (report.source.path as NSString).lastPathComponent)
        var values: [(String, String)] = [("Duration", Self.clock(duration))]
        values.append(("Tempo", h.beatsPerMinute.map { String(format: "%.1f BPM", $0) + (h.beatsPerBar.map { " · \($0) beats/bar" } ?? "") } ?? "—"))
        values.append(("Key", h.key.map { "\($0.name) (\($0.camelot))" } ?? "—"))
        values.append(("Integrated", h.integratedLoudness.map { Self.level($0, "LUFS") } ?? "—"))
        values.append(("Loudness range", h.loudnessRange.map { Self.level($0, "LU") } ?? "—"))
        values.append(("True peak", h.truePeak.map { Self.level($0, "dBTP") } ?? "—"))
        var x = 16.0
        for (name, value) in values {
            s.element("text", ["x": fmt(x), "y": "50", "font-size": "11", "fill": "#666"], text: name)
            s.element("text", ["x": fmt(x), "y": "67", "font-size": "15", "fill": Palette.bar, "class": "headline"], text: value)
            x += max(120, Double(value.count) * 8.5 + 24)
        }
    }

    private func drawLane(_ l: Lane, into s: inout SVGText) {
        let (top, h) = lane(l)
        let result = report.result
        s.open("g", ["id": "lane-\(l.rawValue)", "data-top": fmt(top), "data-height": fmt(h)])
        if l != .axis {
            s.element("rect", ["x": fmt(layout.left), "y": fmt(top), "width": fmt(layout.plotWidth), "height": fmt(h), "fill": Palette.laneBackground])
            s.element("text", ["x": fmt(layout.left - 8), "y": fmt(top + h / 2 + 4), "text-anchor": "end", "fill": Palette.bar], text: laneName(l))
        }
        switch l {
        case .loudness: drawLoudness(result?.loudness, top: top, height: h, into: &s)
        case .beats: drawBeats(result?.rhythm, top: top, height: h, into: &s)
        case .sections: drawSections(result?.structure, top: top, height: h, into: &s)
        case .key: drawKey(result?.key, top: top, height: h, into: &s)
        case .vocal, .drum, .bass, .other:
            let instrument = InstrumentActivityResult.Instrument(rawValue: l.rawValue) ?? .other
            drawInstrument(instrument, result?.instrumentActivity, top: top, height: h, into: &s)
        case .pace: drawPace(result?.pace, top: top, height: h, into: &s)
        case .axis: drawAxis(top: top, into: &s)
        }
        s.close("g")
    }

    private func laneName(_ l: Lane) -> String {
        switch l {
        case .loudness: "Loudness (LUFS)"
        case .beats: barStride > 1 ? "Bars (1 in \(barStride))" : drawsBeats ? "Beats, bars" : "Bars"
        case .sections: "Sections"
        case .key: "Key"
        case .vocal: "Vocal"
        case .drum: "Drums"
        case .bass: "Bass"
        case .other: "Other"
        case .pace: "Pace"
        case .axis: ""
        }
    }

    private func absent(_ what: String, top: Double, height: Double, into s: inout SVGText) {
        s.element("text", ["x": fmt(layout.left + 8), "y": fmt(top + height / 2 + 4), "fill": "#888", "font-style": "italic"], text: what)
    }

    /// Short-term loudness from −60 to 0 LUFS, the maximum of each pixel column; integrated loudness dashed.
    private func drawLoudness(_ loudness: LoudnessResult?, top: Double, height: Double, into s: inout SVGText) {
        guard let loudness, !loudness.shortTerm.isEmpty else { return absent("loudness not analysed", top: top, height: height, into: &s) }
        let floor = -60.0
        func y(_ v: Double) -> Double { top + height * (1 - (min(max(v, floor), 0) - floor) / -floor) }
        let columns = columnMaxima(loudness.shortTerm.map { ($0.time, Double($0.value)) }, empty: floor)
        var path = "M\(fmt(layout.left)),\(fmt(top + height))"
        for (i, v) in columns.enumerated() {
            let x0 = layout.left + Double(i), x1 = x0 + 1
            path += "L\(fmt(x0)),\(fmt(y(v)))L\(fmt(x1)),\(fmt(y(v)))"
        }
        path += "L\(fmt(layout.left + layout.plotWidth)),\(fmt(top + height))Z"
        s.element("path", ["d": path, "fill": Palette.loudness, "class": "loudness"])
        for level in [-12.0, -24, -36, -48] {
            s.element(
                "line",
                [
                    "x1": fmt(layout.left), "x2": fmt(layout.left + layout.plotWidth), "y1": fmt(y(level)), "y2": fmt(y(level)),
                    "stroke": "#ffffff", "stroke-opacity": "0.5", "stroke-width": "0.5",
                ])
            s.element("text", ["x": fmt(layout.left + 3), "y": fmt(y(level) - 2), "font-size": "9", "fill": "#555"], text: "\(Int(level))")
        }
        let integrated = Double(loudness.integrated.value)
        if integrated.isFinite {
            s.element(
                "line",
                [
                    "x1": fmt(layout.left), "x2": fmt(layout.left + layout.plotWidth), "y1": fmt(y(integrated)), "y2": fmt(y(integrated)),
                    "stroke": Palette.integrated, "stroke-width": "1.5", "stroke-dasharray": "6 4", "class": "integrated",
                ])
        }
    }

    private func drawBeats(_ rhythm: RhythmResult?, top: Double, height: Double, into s: inout SVGText) {
        guard let rhythm else { return absent("rhythm not analysed", top: top, height: height, into: &s) }
        if rhythm.beats.isEmpty { return absent("no beats", top: top, height: height, into: &s) }
        if drawsBeats {
            var path = ""
            for t in rhythm.beats { path += "M\(fmt(x(t))),\(fmt(top + height * 0.45))V\(fmt(top + height))" }
            s.element("path", ["d": path, "stroke": Palette.beat, "stroke-width": "1", "class": "beats"])
        }
        let stride = barStride
        var path = ""
        var drawn = 0
        for (i, t) in rhythm.bars.enumerated() where i % stride == 0 {
            path += "M\(fmt(x(t))),\(fmt(top))V\(fmt(top + height))"
            drawn += 1
        }
        s.element("path", ["d": path, "stroke": Palette.bar, "stroke-width": "1.5", "class": "bars", "data-count": "\(drawn)"])
        drawTempoCurve(rhythm.tempoCurve ?? [], top: top, height: height * 0.4, into: &s)
    }

    /// The local tempo (``RhythmResult/tempoCurve``) as a line in the top of the beat lane, from
    /// its lowest to its highest value, labelled with both.
    private func drawTempoCurve(
        _ curve: [MusicUnderstandingSession.TimedValue<Float>], top: Double, height: Double, into s: inout SVGText
    ) {
        // One point per pixel column at most (a curve per bar of a 3-hour mix stays small).
        var points: [MusicUnderstandingSession.TimedValue<Float>] = []
        for p in curve where p.time.isFinite && p.value.isFinite && p.value > 0 {
            if let last = points.last, x(p.time) - x(last.time) < 1 { continue }
            points.append(p)
        }
        guard points.count >= 2, let low = points.map(\.value).min(), let high = points.map(\.value).max() else { return }
        let span = Double(max(high - low, 1))
        func y(_ v: Float) -> Double { top + 2 + (height - 4) * (1 - Double(v - low) / span) }
        let path = points.enumerated().map { "\($0.offset == 0 ? "M" : "L")\(fmt(x($0.element.time))),\(fmt(y($0.element.value)))" }.joined()
        s.element(
            "path",
            ["d": path, "stroke": Palette.tempo, "stroke-width": "1.5", "fill": "none", "class": "tempo-curve", "data-count": "\(points.count)"])
        let label = String(format: "%.0f–%.0f BPM", Double(low), Double(high))
        let right = layout.left + layout.plotWidth
        let width = Double(label.count) * 5.6 + 6
        s.element("rect", ["x": fmt(right - width), "y": fmt(top), "width": fmt(width), "height": "13", "fill": Palette.laneBackground])
        s.element(
            "text", ["x": fmt(right - 3), "y": fmt(top + 10), "text-anchor": "end", "font-size": "10", "fill": Palette.tempo],
            text: label)
    }

    private func drawSections(_ structure: StructureResult?, top: Double, height: Double, into s: inout SVGText) {
        guard let structure else { return absent("structure not analysed", top: top, height: height, into: &s) }
        for (i, section) in structure.sections.enumerated() {
            let label = structure.sectionLabels.flatMap { i < $0.count ? $0[i] : nil }
            let function = structure.sectionFunctions.flatMap { i < $0.count ? $0[i] : nil }
            let x0 = x(section.start), w = max(0.5, x(section.end) - x0)
            s.element(
                "rect",
                [
                    "x": fmt(x0), "y": fmt(top), "width": fmt(w), "height": fmt(height), "fill": sectionColour(label),
                    "stroke": "#ffffff", "stroke-width": "1", "class": "section",
                ])
            let text = [label, function].compactMap { $0 }.joined(separator: " ")
            if w > Double(text.count) * 7 + 6 {
                s.element("text", ["x": fmt(x0 + 4), "y": fmt(top + height / 2 + 4), "fill": Palette.bar], text: text)
            } else if let label, w > 12 {
                s.element("text", ["x": fmt(x0 + 2), "y": fmt(top + height / 2 + 4), "fill": Palette.bar], text: label)
            }
        }
    }

    /// The colour of a repetition label: A is the first colour, B the second, … `AA` after `Z`.
    func sectionColour(_ label: String?) -> String {
        guard let label, !label.isEmpty else { return Palette.sections[Palette.sections.count - 1] }
        // The bijective base-26 value of the label, reduced as it is read so that a label of any
        // length (a report is untrusted input) cannot overflow.
        let count = Palette.sections.count
        var index = 0
        for scalar in label.unicodeScalars { index = (index * 26 + Int(scalar.value) - 64) % count }
        return Palette.sections[((index - 1) % count + count) % count]
    }

    private func drawKey(_ key: KeyResult?, top: Double, height: Double, into s: inout SVGText) {
        guard let key else { return absent("key not analysed", top: top, height: height, into: &s) }
        if key.ranges.isEmpty { return absent("no key", top: top, height: height, into: &s) }
        for range in key.ranges {
            let x0 = x(range.range.start), w = max(0.5, x(range.range.end) - x0)
            s.element(
                "rect",
                [
                    "x": fmt(x0), "y": fmt(top), "width": fmt(w), "height": fmt(height), "fill": keyColour(range.value),
                    "stroke": "#ffffff", "stroke-width": "1", "class": "key",
                ])
            let text = "\(range.value.standardNotation) \(range.value.camelot)"
            if w > Double(text.count) * 7 + 6 {
                s.element("text", ["x": fmt(x0 + 4), "y": fmt(top + height / 2 + 4), "fill": Palette.bar], text: text)
            }
        }
    }

    /// Neighbours on the Camelot wheel get neighbouring hues; minor keys are darker.
    func keyColour(_ key: KeyResult.KeySignature) -> String {
        let number = Int(key.camelot.dropLast()) ?? 1
        return Self.hsl(hue: Double(number - 1) * 30, saturation: 0.55, lightness: key.mode == .major ? 0.78 : 0.64)
    }

    private func drawInstrument(
        _ instrument: InstrumentActivityResult.Instrument, _ activity: InstrumentActivityResult?,
        top: Double, height: Double, into s: inout SVGText
    ) {
        guard let activity else { return absent("instrument activity not analysed", top: top, height: height, into: &s) }
        let colour = Palette.instruments[instrument] ?? Palette.bar
        for range in activity.ranges[instrument] ?? [] {
            let x0 = x(range.start), w = max(1, x(range.end) - x0)
            s.element(
                "rect",
                [
                    "x": fmt(x0), "y": fmt(top), "width": fmt(w), "height": fmt(height),
                    "fill": Self.tint(colour, Palette.rangeTint), "class": "range",
                ])
        }
        let curve = activity.activity[instrument] ?? []
        guard curve.contains(where: { $0.value > 0 }) else { return }
        let columns = columnMaxima(curve.map { ($0.time, Double(InstrumentActivityResult.contractActivity($0.value))) }, empty: 0)
        var path = "M\(fmt(layout.left)),\(fmt(top + height))"
        for (i, v) in columns.enumerated() {
            let yv = top + height * (1 - v)
            path += "L\(fmt(layout.left + Double(i))),\(fmt(yv))L\(fmt(layout.left + Double(i + 1))),\(fmt(yv))"
        }
        path += "L\(fmt(layout.left + layout.plotWidth)),\(fmt(top + height))Z"
        s.element("path", ["d": path, "fill": colour, "fill-opacity": "0.85", "class": "activity"])
    }

    private func drawPace(_ pace: PaceResult?, top: Double, height: Double, into s: inout SVGText) {
        guard let pace else { return absent("pace not analysed", top: top, height: height, into: &s) }
        let values = pace.ranges.map(\.value).filter(\.isFinite)
        guard let highest = values.max(), highest > 0 else { return absent("no pace", top: top, height: height, into: &s) }
        let scale = Self.niceCeiling(highest * 1.15)
        func y(_ v: Double) -> Double { top + height * (1 - min(max(v / scale, 0), 1)) }
        var path = ""
        var area = ""
        for range in pace.ranges where range.value.isFinite {
            let x0 = x(range.range.start), x1 = x(range.range.end), yv = y(range.value)
            path += "M\(fmt(x0)),\(fmt(yv))H\(fmt(x1))"
            area += "M\(fmt(x0)),\(fmt(top + height))V\(fmt(yv))H\(fmt(x1))V\(fmt(top + height))Z"
        }
        s.element("path", ["d": area, "fill": Palette.paceFill, "class": "pace-area"])
        s.element("path", ["d": path, "stroke": Palette.pace, "stroke-width": "1.5", "fill": "none", "class": "pace"])
        s.element("text", ["x": fmt(layout.left + 3), "y": fmt(top + 10), "font-size": "9", "fill": "#555"], text: "\(Self.count(scale)) events/min")
    }

    private func drawAxis(top: Double, into s: inout SVGText) {
        let step = Self.tickStep(duration: duration, width: layout.plotWidth)
        s.element("line", ["x1": fmt(layout.left), "x2": fmt(layout.left + layout.plotWidth), "y1": fmt(top), "y2": fmt(top), "stroke": Palette.bar])
        var t = 0.0
        var ticks = 0
        while t <= duration + 1e-9 {
            let xt = x(t)
            s.element("line", ["x1": fmt(xt), "x2": fmt(xt), "y1": fmt(top), "y2": fmt(top + 5), "stroke": Palette.bar])
            s.element(
                "text", ["x": fmt(xt), "y": fmt(top + 18), "text-anchor": "middle", "font-size": "11", "fill": Palette.bar, "class": "tick"],
                text: Self.clock(t))
            ticks += 1
            t = Double(ticks) * step
        }
    }

    private func drawLegend(_ s: inout SVGText) {
        let axis = lane(.axis)
        let y = axis.top + axis.height + layout.gap + 14
        var x = layout.left
        func swatch(_ colour: String, _ name: String, line: Bool = false, dashed: Bool = false) {
            if line {
                s.element(
                    "line",
                    [
                        "x1": fmt(x), "x2": fmt(x + 16), "y1": fmt(y - 4), "y2": fmt(y - 4), "stroke": colour, "stroke-width": "2",
                        "stroke-dasharray": dashed ? "4 3" : "none",
                    ])
            } else {
                s.element("rect", ["x": fmt(x), "y": fmt(y - 10), "width": "14", "height": "12", "fill": colour])
            }
            s.element("text", ["x": fmt(x + 20), "y": fmt(y), "font-size": "11", "fill": Palette.bar], text: name)
            x += 28 + Double(name.count) * 6.2
        }
        s.open("g", ["id": "legend"])
        swatch(Palette.loudness, "short-term loudness (LUFS)")
        swatch(Palette.integrated, "integrated", line: true, dashed: true)
        swatch(Palette.bar, "bar line", line: true)
        swatch(Palette.beat, "beat", line: true)
        swatch(Palette.tempo, "local tempo", line: true)
        for instrument in InstrumentActivityResult.Instrument.allCases {
            swatch(Palette.instruments[instrument] ?? Palette.bar, instrument.rawValue)
        }
        swatch(Palette.pace, "pace (events/min)", line: true)
        x = layout.left
        let y2 = y + 18
        s.element(
            "text", ["x": fmt(x), "y": fmt(y2), "font-size": "11", "fill": "#555"],
            text:
                "Instruments: pale = present, full colour = intensity. Sections: same letter = same material, with a guessed function. Key: Camelot code; neighbouring colours mix."
        )
        s.close("g")
    }

    // MARK: - Helpers

    /// The maximum value in each pixel column of the plot (`empty` where no value falls).
    /// Values are `(time, value)` in time order; a column without values holds the last value
    /// before it, so a curve sampled more sparsely than the pixels stays continuous.
    func columnMaxima(_ values: [(Double, Double)], empty: Double) -> [Double] {
        let columns = max(1, Int(layout.plotWidth.rounded()))
        var out = [Double](repeating: -.infinity, count: columns)
        for (t, v) in values where t.isFinite {
            let c = Self.column(t / duration * Double(columns), count: columns)
            out[c] = max(out[c], v.isFinite ? v : empty)
        }
        var last = empty
        var seen = false
        for c in 0..<columns {
            if out[c] == -.infinity {
                out[c] = seen ? last : empty
            } else {
                last = out[c]
                seen = true
            }
        }
        return out
    }

    /// A tick step from 1 s to 1 h so that labels stand at least 70 px apart.
    static func tickStep(duration: Double, width: Double) -> Double {
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400]
        for step in steps where width * step / max(duration, 1e-9) >= 70 { return step }
        return steps[steps.count - 1] * (duration / width * 70 / steps[steps.count - 1]).rounded(.up)
    }

    /// 1, 2 or 5 times a power of ten at or above `v`.
    static func niceCeiling(_ v: Double) -> Double {
        let p = pow(10, (log10(v)).rounded(.down))
        for m in [1.0, 2, 5, 10] where m * p >= v { return m * p }
        return 10 * p
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        // A report is untrusted: a duration beyond a million hours, or not finite, is not a clock time.
        guard seconds.isFinite, seconds.magnitude < 3.6e9 else { return seconds.isFinite ? String(format: "%.3g s", seconds) : "?" }
        let total = Int(seconds.rounded())
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    static func level(_ v: Double, _ unit: String) -> String {
        v.isFinite ? String(format: "%.1f %@", v, unit) : "−∞ \(unit)"
    }

    /// A column index for a position in columns, clamped to `0..<count` (a non-finite or huge
    /// position, from an untrusted report, lands on the nearer edge).
    static func column(_ position: Double, count: Int) -> Int {
        guard position.isFinite else { return position > 0 ? count - 1 : 0 }
        return Int(min(Double(count - 1), max(0, position)))
    }

    /// A count for a label: a whole number, or three significant digits when it is too large for one.
    static func count(_ v: Double) -> String {
        v.isFinite && v.magnitude < 1e12 ? String(Int(v)) : String(format: "%.3g", v)
    }

    static func hsl(hue: Double, saturation: Double, lightness: Double) -> String {
        let c = (1 - abs(2 * lightness - 1)) * saturation
        let hp = hue / 60
        let x = c * (1 - abs(hp.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch Int(hp) % 6 {
            case 0: (c, x, 0)
            case 1: (x, c, 0)
            case 2: (0, c, x)
            case 3: (0, x, c)
            case 4: (x, 0, c)
            default: (c, 0, x)
            }
        let m = lightness - c / 2
        return hex(r + m, g + m, b + m)
    }

    /// `colour` mixed with white by `amount` (0: unchanged, 1: white).
    static func tint(_ colour: String, _ amount: Double) -> String {
        let (r, g, b) = rgb(colour)
        return hex(r + (1 - r) * amount, g + (1 - g) * amount, b + (1 - b) * amount)
    }

    /// The components (0…1) of `#rrggbb`.
    public static func rgb(_ colour: String) -> (Double, Double, Double) {
        let digits = colour.hasPrefix("#") ? String(colour.dropFirst()) : colour
        let v = Int(digits, radix: 16) ?? 0
        return (Double((v >> 16) & 0xFF) / 255, Double((v >> 8) & 0xFF) / 255, Double(v & 0xFF) / 255)
    }

    static func hex(_ r: Double, _ g: Double, _ b: Double) -> String {
        func byte(_ v: Double) -> Int { Int((min(max(v, 0), 1) * 255).rounded()) }
        return String(format: "#%02x%02x%02x", byte(r), byte(g), byte(b))
    }
}

/// Coordinates: at most two decimals, no trailing zeros.
private func fmt(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100 + 0
    guard r.isFinite else { return "0" }
    return r == r.rounded() && r.magnitude < 1e15 ? String(Int(r)) : String(r)
}

/// A minimal SVG writer: elements with sorted attributes, escaped text.
struct SVGText {
    var text = ""
    private var depth = 0

    mutating func open(_ name: String, _ attributes: [String: String] = [:]) {
        text += String(repeating: " ", count: depth) + "<\(name)\(Self.attributes(attributes))>\n"
        depth += 1
    }

    /// Appends markup as it is (an already-built element).
    mutating func raw(_ markup: String) { text += markup }

    mutating func close(_ name: String) {
        depth -= 1
        text += String(repeating: " ", count: depth) + "</\(name)>\n"
    }

    mutating func element(_ name: String, _ attributes: [String: String] = [:], text content: String? = nil) {
        text += String(repeating: " ", count: depth) + "<\(name)\(Self.attributes(attributes))"
        if let content { text += ">\(Self.escape(content))</\(name)>\n" } else { text += "/>\n" }
    }

    static func attributes(_ a: [String: String]) -> String {
        a.keys.sorted().map { " \($0)=\"\(escape(a[$0] ?? ""))\"" }.joined()
    }

    /// `&`, `<`, `>`, `"` and `'` as XML entities.
    static func escape(_ s: String) -> String {
        // One escaping for every XML the library writes: control characters that XML 1.0 forbids
        // (a file name may hold any byte) are dropped, so the SVG stays well-formed.
        XMLText.escaped(s)
    }
}
