/// Writes reports as compact JSON straight into a byte buffer: the same document `Codable`
/// gives with sorted keys, without building an intermediate tree, so a 3-hour file's report
/// (hundreds of thousands of loudness values) costs about its own size in memory.
struct ReportWriter {
    private(set) var bytes: [UInt8] = []
    /// Per open container: whether nothing has been written in it yet.
    private var first: [Bool] = []
    /// A key was just written: its value takes no separator.
    private var afterKey = false

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    private mutating func prologue() {
        if afterKey { afterKey = false; return }
        if let isFirst = first.last {
            if !isFirst { bytes.append(UInt8(ascii: ",")) }
            first[first.count - 1] = false
        }
    }

    mutating func key(_ name: String) {
        prologue()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func object(_ body: (inout ReportWriter) -> Void) {
        prologue()
        bytes.append(UInt8(ascii: "{"))
        first.append(true)
        body(&self)
        first.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func array(_ body: (inout ReportWriter) -> Void) {
        prologue()
        bytes.append(UInt8(ascii: "["))
        first.append(true)
        body(&self)
        first.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func string(_ s: String) { prologue(); writeString(s) }
    mutating func null() { prologue(); bytes.append(contentsOf: "null".utf8) }
    mutating func int(_ v: Int) { prologue(); bytes.append(contentsOf: String(v).utf8) }

    /// A finite number (integers without a fraction), or `null` when not finite.
    mutating func number(_ v: Double) {
        prologue()
        guard v.isFinite else { bytes.append(contentsOf: "null".utf8); return }
        if v == v.rounded(), abs(v) < 1e15 {
            bytes.append(contentsOf: String(Int64(v)).utf8)
        } else {
            bytes.append(contentsOf: v.description.utf8)
        }
    }

    private mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

// MARK: - The report, field by field (keys in sorted order, as `.sortedKeys` would give)

extension ReportWriter {
    mutating func write(_ report: Report) {
        object { w in
            if let e = report.error {
                w.key("error")
                w.object { w in
                    w.key("code"); w.string(e.code)
                    w.key("message"); w.string(e.message)
                }
            }
            let r = report.result
            if let a = r?.instrumentActivity { w.key("instrumentActivity"); w.write(a) }
            if let k = r?.key {
                w.key("key")
                w.rangedValues(k.ranges) { w, signature in
                    w.object { w in
                        w.key("mode"); w.string(signature.mode.rawValue)
                        w.key("tonic"); w.string(signature.tonic.rawValue)
                    }
                }
            }
            if let l = r?.loudness { w.key("loudness"); w.write(l) }
            if let p = r?.pace {
                w.key("pace")
                w.rangedValues(p.ranges) { w, value in w.number(value) }
            }
            if let rh = r?.rhythm {
                w.key("rhythm")
                w.object { w in
                    w.key("bars"); w.times(rh.bars)
                    w.key("beats"); w.times(rh.beats)
                    if let n = rh.beatsPerBar { w.key("beatsPerBar"); w.int(n) }
                    w.key("beatsPerMinute")
                    if let bpm = rh.beatsPerMinute, bpm.isFinite, bpm > 0 { w.number(ReportRounding.level(Double(bpm))) } else { w.null() }
                }
            }
            w.key("schemaVersion"); w.int(report.schemaVersion)
            w.key("source")
            w.object { w in
                let s = report.source
                if let c = s.channels { w.key("channels"); w.int(c) }
                if let c = s.codec { w.key("codec"); w.string(c) }
                if let d = s.duration { w.key("duration"); w.number((d * 1_000_000).rounded() / 1_000_000) }
                w.key("path"); w.string(s.path)
                if let r = s.sampleRate { w.key("sampleRate"); w.int(r) }
            }
            if let st = r?.structure {
                w.key("structure")
                w.object { w in
                    w.key("phrases"); w.ranges(st.phrases)
                    if let f = st.sectionFunctions { w.key("sectionFunctions"); w.array { w in for v in f { w.string(v) } } }
                    if let l = st.sectionLabels { w.key("sectionLabels"); w.array { w in for v in l { w.string(v) } } }
                    w.key("sections"); w.ranges(st.sections)
                    w.key("segments"); w.ranges(st.segments)
                }
            }
            if let warning = report.warning { w.key("warning"); w.string(warning) }
        }
    }

    /// `{"ranges": [{"range": {...}, "value": V}, ...]}`, the shape of key and pace results.
    mutating func rangedValues<V>(_ ranges: [MusicUnderstandingSession.RangedValue<V>],
                                  value writeValue: (inout ReportWriter, V) -> Void) {
        object { w in
            w.key("ranges")
            w.array { w in
                for ranged in ranges {
                    w.object { w in
                        w.key("range"); w.write(ranged.range)
                        w.key("value"); writeValue(&w, ranged.value)
                    }
                }
            }
        }
    }

    mutating func write(_ range: TimeRange) {
        object { w in
            w.key("duration"); w.number(ReportRounding.time(range.duration))
            w.key("start"); w.number(ReportRounding.time(range.start))
        }
    }

    mutating func times(_ values: [Double]) {
        array { w in for t in values { w.number(ReportRounding.time(t)) } }
    }

    mutating func ranges(_ values: [TimeRange]) {
        array { w in for r in values { w.write(r) } }
    }

    mutating func level(_ v: Float) {
        if v.isFinite { number(ReportRounding.level(Double(v))) } else { null() }
    }

    mutating func timed(_ v: MusicUnderstandingSession.TimedValue<Float>) {
        object { w in
            w.key("time"); w.number(ReportRounding.time(v.time))
            w.key("value"); w.level(v.value)
        }
    }

    mutating func write(_ l: LoudnessResult) {
        object { w in
            w.key("integrated"); w.timed(l.integrated)
            w.key("loudnessRange"); w.level(l.loudnessRange)
            w.key("momentary"); w.array { w in for v in l.momentary { w.timed(v) } }
            w.key("peak"); w.timed(l.peak)
            w.key("shortTerm"); w.array { w in for v in l.shortTerm { w.timed(v) } }
            w.key("truePeak"); w.level(l.truePeak)
        }
    }

    mutating func write(_ a: InstrumentActivityResult) {
        let instruments = InstrumentActivityResult.Instrument.allCases.sorted { $0.rawValue < $1.rawValue }
        object { w in
            w.key("activity")
            w.object { w in
                for i in instruments {
                    w.key(i.rawValue)
                    w.array { w in
                        for v in a.activity[i] ?? [] {
                            w.object { w in
                                w.key("time"); w.number(ReportRounding.time(v.time))
                                w.key("value"); w.number(ReportRounding.level(Double(max(0, min(1, v.value)))))
                            }
                        }
                    }
                }
            }
            w.key("ranges")
            w.object { w in
                for i in instruments { w.key(i.rawValue); w.ranges(a.ranges[i] ?? []) }
            }
        }
    }
}
