import Foundation
import Testing
@testable import MusicUnderstanding

/// Mean over vectors `range` of a flat vector-major array, per dimension.
private func meanVector(_ values: [Float], dimension: Int, vectors range: Range<Int>) -> [Double] {
    var m = [Double](repeating: 0, count: dimension)
    for i in range { for d in 0..<dimension { m[d] += Double(values[i * dimension + d]) } }
    return m.map { $0 / Double(max(1, range.count)) }
}

/// Sum over vectors `range` and all bands of a flat vector-major array.
private func total(_ values: [Float], bands: Int, vectors range: Range<Int>, band: Int? = nil) -> Double {
    var s = 0.0
    for i in range {
        for b in 0..<bands where band == nil || band == b { s += Double(values[i * bands + b]) }
    }
    return s
}

@Suite struct FeatureTests {
    // MARK: - Mel bands and MFCCs

    @Test func sineLandsInItsMelBand() {
        // Slaney mel scale, written out independently of the implementation.
        func mel(_ f: Double) -> Double { f < 1000 ? 3 * f / 200 : 15 + 27 * log(f / 1000) / log(6.4) }
        let step = (mel(11_000) - mel(30)) / 41
        for f in [250.0, 1000, 4000] {
            let (features, _) = FeatureSynth.mel(FeatureSynth.tones([(f, 0.5)], seconds: 2))
            #expect(features.bandCount == 40)
            let m = meanVector(features.bands, dimension: 40, vectors: 4..<(features.count - 4))
            let loudest = m.indices.max { m[$0] < m[$1] } ?? -1
            // Band b peaks at mel point b + 1.
            let expected = Int(((mel(f) - mel(30)) / step).rounded()) - 1
            #expect(loudest == expected, "\(f) Hz: loudest band \(loudest), expected \(expected)")
            let centre = features.bandCentres[max(0, loudest)]
            #expect(abs(mel(centre) - mel(f)) <= step / 2 + 1e-9)
        }
        // Half the amplitude is 6.02 dB, 0.602 in the log10 band values (well above the floor).
        let (loud, _) = FeatureSynth.mel(FeatureSynth.tones([(1000, 0.5)], seconds: 2))
        let (soft, _) = FeatureSynth.mel(FeatureSynth.tones([(1000, 0.25)], seconds: 2))
        let band = Int(((mel(1000) - mel(30)) / step).rounded()) - 1
        let a = meanVector(loud.bands, dimension: 40, vectors: 4..<(loud.count - 4))[band]
        let b = meanVector(soft.bands, dimension: 40, vectors: 4..<(soft.count - 4))[band]
        #expect(abs((a - b) - 0.602) < 0.01, "level difference \(a - b)")
    }

    @Test func melLayoutAndPooling() {
        let seconds = 3.0
        let (features, frames) = FeatureSynth.mel(FeatureSynth.noise(seconds: seconds, amplitude: 0.3))
        #expect(frames == Int(seconds * 22_050) / 256 + 1)
        #expect(features.count == (frames + 3) / 4)
        #expect(features.mfcc.count == features.count * 13)
        #expect(abs(features.frameRate - 22_050.0 / 256 / 4) < 1e-9)
        #expect(features.bandCentres.count == 40)
        #expect(zip(features.bandCentres, features.bandCentres.dropFirst()).allSatisfy { $0 < $1 })
        #expect(features.bands.allSatisfy { $0.isFinite && $0 >= 0 })

        let (single, _) = FeatureSynth.mel(
            FeatureSynth.noise(seconds: seconds, amplitude: 0.3),
            {
                var s = MelConfiguration(); s.framesPerVector = 1; return s
            }())
        #expect(single.count == frames)
        // Pooling is the mean of the frames: vector 5 of the pooled run is frames 20...23.
        for b in [0, 17, 39] {
            let mean = (20..<24).map { single.bands[$0 * 40 + b] }.reduce(0, +) / 4
            #expect(abs(mean - features.bands[5 * 40 + b]) < 1e-4)
        }

        let (silence, _) = FeatureSynth.mel([Float](repeating: 0, count: 22_050))
        #expect(silence.bands.allSatisfy { $0 == 0 })
        #expect(silence.mfcc.allSatisfy { $0 == 0 })
    }

    @Test func mfccOfWhiteNoiseIsFlatAndOfAToneIsNot() {
        let (noise, _) = FeatureSynth.mel(FeatureSynth.noise(seconds: 4, amplitude: 0.3))
        let bands = meanVector(noise.bands, dimension: 40, vectors: 4..<(noise.count - 4))
        // Equal-area filters: white noise gives the same energy in every band.
        let spread = (bands.max() ?? 0) - (bands.min() ?? 0)
        #expect(spread < 0.1, "noise band spread \(spread)")
        let c = meanVector(noise.mfcc, dimension: 13, vectors: 4..<(noise.count - 4))
        // c0 of the orthonormal DCT is sqrt(M) × the mean band value; the others vanish.
        let meanBand = bands.reduce(0, +) / 40
        #expect(abs(c[0] - 40.0.squareRoot() * meanBand) < 1e-3)
        #expect(c[0] > 15)
        let noiseShape = c.dropFirst().map(abs).max() ?? 1
        #expect(noiseShape < 0.1, "noise c1...c12 up to \(noiseShape)")

        let (tone, _) = FeatureSynth.mel(FeatureSynth.tones([(220, 0.3), (440, 0.15), (660, 0.1)], seconds: 4))
        let t = meanVector(tone.mfcc, dimension: 13, vectors: 4..<(tone.count - 4))
        let toneShape = t.dropFirst().map(abs).max() ?? 0
        #expect(toneShape > 20 * noiseShape && toneShape > 1, "tone c1...c12 up to \(toneShape)")
        // The tone's energy is at the bottom of the spectrum: c1 (low minus high) is positive.
        #expect(t[1] > 1)
        // Noise fills all bands, the tone a few: noise has the larger overall level c0.
        #expect(c[0] > t[0])
    }

    // MARK: - Harmonic / percussive / residual

    private static let chord: [(Double, Float)] = [
        (220, 0.2), (440, 0.1), (660, 0.05),
        (277.18, 0.2), (554.37, 0.1), (831.61, 0.05),
        (329.63, 0.2), (659.26, 0.1), (988.88, 0.05),
    ]

    @Test func sustainedChordIsHarmonic() {
        let f = FeatureSynth.hpss(FeatureSynth.tones(Self.chord, seconds: 3))
        #expect(f.bandEdges == [0, 120, 250, 2000, 5000, 11_000])
        #expect(f.bandCount == 5)
        // Skip the abrupt start and end (0.35 s), which are genuine broadband onsets.
        let middle = 8..<(f.count - 8)
        let h = total(f.harmonic, bands: 5, vectors: middle)
        let p = total(f.percussive, bands: 5, vectors: middle)
        let r = total(f.residual, bands: 5, vectors: middle)
        #expect(h > 100 * p, "harmonic \(h), percussive \(p)")
        #expect(h > 20 * r, "harmonic \(h), residual \(r)")
        // Energy lands in the bands of the partials: all but the 220 Hz fundamental (bass band,
        // a quarter of the energy) are in the low-mid band.
        let lowMid = total(f.harmonic, bands: 5, vectors: middle, band: 2)
        #expect(lowMid > 0.6 * h && lowMid < 0.85 * h)
        // Normalised power: a sine of amplitude a carries 1.5 a² per frame (Parseval with the
        // Hann window), nearly all in its main lobe, all of it harmonic; allow 10 %.
        let perFrame = h / Double(middle.count)
        let theory = Self.chord.map { 1.5 * Double($0.1 * $0.1) }.reduce(0, +)
        #expect(abs(perFrame - theory) < 0.1 * theory, "per-frame harmonic energy \(perFrame), theory \(theory)")
    }

    @Test func clickTrainIsPercussive() {
        let f = FeatureSynth.hpss(FeatureSynth.clicks(seconds: 3, period: 0.25, first: 0.1))
        let all = 0..<f.count
        let h = total(f.harmonic, bands: 5, vectors: all)
        let p = total(f.percussive, bands: 5, vectors: all)
        #expect(p > 0)
        #expect(p > 50 * h, "percussive \(p), harmonic \(h)")
        // Broadband: every band gets percussive energy, roughly in proportion to its width.
        for b in 0..<5 { #expect(total(f.percussive, bands: 5, vectors: all, band: b) > 0) }
    }

    @Test func mixPutsBassAndClicksInTheirPlaces() {
        let seconds = 4.0
        let bass = FeatureSynth.tones([(80, 0.5)], seconds: seconds)
        let clicks = FeatureSynth.clicks(seconds: seconds, period: 0.5, first: 0.3)
        let alone = FeatureSynth.hpss(bass)
        let f = FeatureSynth.hpss(FeatureSynth.mix(bass, clicks))
        let middle = 8..<(f.count - 8)
        let subBassH = total(f.harmonic, bands: 5, vectors: middle, band: 0)
        let subBassP = total(f.percussive, bands: 5, vectors: middle, band: 0)
        let highH = total(f.harmonic, bands: 5, vectors: middle, band: 4)
        let highP = total(f.percussive, bands: 5, vectors: middle, band: 4)
        #expect(subBassH > 100 * subBassP, "sub-bass harmonic \(subBassH), percussive \(subBassP)")
        #expect(highP > 20 * highH, "high percussive \(highP), harmonic \(highH)")
        // The clicks do not disturb the bass: its harmonic energy is that of the bass alone.
        let aloneH = total(alone.harmonic, bands: 5, vectors: middle, band: 0)
        #expect(abs(subBassH - aloneH) < 0.02 * aloneH, "with clicks \(subBassH), alone \(aloneH)")
        // The output is aligned despite the streaming delay: the percussive peak of each click
        // is in the vector holding the click's frame (± 1 vector).
        let stftRate = FeatureSynth.configuration.frameRate
        var t = 0.3
        while t < seconds - 0.3 {
            let expected = Int((t * stftRate).rounded()) / f.framesPerVector
            let window = max(0, expected - 4)..<min(f.count, expected + 5)
            let peak = window.max { f.percussive[$0 * 5 + 4] < f.percussive[$1 * 5 + 4] } ?? -10
            #expect(abs(peak - expected) <= 1, "click at \(t) s: peak vector \(peak), expected \(expected)")
            t += 0.5
        }
    }

    /// Paeth's median-of-9 network against sorting, on values with many ties.
    @Test func medianOfNineNetworkMatchesSorting() {
        var g = FeatureSynth.Noise(state: 5)
        for _ in 0..<5000 {
            let v = (0..<9).map { _ in ((g.next() + 1) * 3).rounded() }
            let m = OrderStatistics.median9(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8])
            #expect(m == v.sorted()[4], "\(v)")
        }
    }

    /// The chroma's harmonic test without the frequency median (a count of the window's values
    /// below `t / β`) decides as the median does, on spectra with many ties and at both edges.
    @Test func chromaHarmonicTestMatchesTheFrequencyMedian() {
        var g = FeatureSynth.Noise(state: 11)
        for _ in 0..<3000 {
            let x = (0..<24).map { _ in ((g.next() + 1) * 4).rounded() / 4 }
            let k = Int(((g.next() + 1) * 12).rounded(.down)) % 24
            let half = 1 + Int(((g.next() + 1) * 4).rounded(.down)) % 8
            let beta: Float = [1, 2, 1.5][k % 3]
            let t = ((g.next() + 1) * 8).rounded() / 4
            let window = Array(x[max(0, k - half)...min(23, k + half)]).sorted()
            let expected = t > beta * window[window.count / 2]
            let decided = x.withUnsafeBufferPointer {
                ChromaAccumulator.exceedsFrequencyMedian(t, $0, around: k, half: half, factor: beta)
            }
            #expect(decided == expected, "\(x) k \(k) half \(half) t \(t)")
        }
    }

    /// The rank selection and the chroma's temporal median (a min/max network for the default
    /// five frames) against sorting, on values with many ties.
    @Test func chromaTemporalMedianMatchesSorting() {
        var g = FeatureSynth.Noise(state: 12)
        for trial in 0..<3000 {
            let values = (0..<(1 + trial % 9)).map { _ in ((g.next() + 1) * 3).rounded() }
            let rank = 1 + trial % values.count
            var copy = values
            let selected = copy.withUnsafeMutableBufferPointer { OrderStatistics.largest($0, count: values.count, rank: rank) }
            #expect(selected == values.sorted(by: >)[rank - 1], "\(values) rank \(rank)")
            // Frames of 4 bins; the median of max(x[k-1], x[k], x[k+1]) at k = 1 over them.
            let frames = values.count
            let ring = (0..<(4 * frames)).map { _ in ((g.next() + 1) * 3).rounded() }
            let rows = (0..<frames).map { 4 * $0 }
            let maxima = rows.map { ring[$0...($0 + 2)].max() ?? 0 }
            var scratch = [Float](repeating: 0, count: frames)
            let median = ring.withUnsafeBufferPointer { r in
                rows.withUnsafeBufferPointer { o in
                    scratch.withUnsafeMutableBufferPointer { ChromaAccumulator.timeMedian(r, o, frames, 1, $0) }
                }
            }
            #expect(median == maxima.sorted(by: >)[frames / 2], "\(maxima)")
        }
    }

    @Test func harmonicPercussiveEdgeCases() {
        // No frames at all, and fewer frames than the median window.
        let empty = HarmonicPercussiveAccumulator(configuration: FeatureSynth.configuration).finish()
        #expect(empty.count == 0 && empty.harmonic.isEmpty)
        let short = FeatureSynth.hpss(FeatureSynth.tones([(440, 0.5)], seconds: 0.02))
        #expect(short.count == 1)  // 2 frames, one partial vector
        #expect(short.harmonic.allSatisfy { $0.isFinite })
        // Hostile settings are sanitised.
        var s = HarmonicPercussiveConfiguration()
        s.bandEdges = [.nan, 9e9, 500, 500, -1]
        s.separationFactor = -3
        s.harmonicMedianLength = 0
        s.percussiveMedianLength = 0
        s.framesPerVector = 0
        let odd = FeatureSynth.hpss(FeatureSynth.noise(seconds: 0.5, amplitude: 0.5), s)
        #expect(odd.bandEdges == [0, 500, 11_000])
        #expect(odd.harmonic.count == odd.count * 2)
        #expect(odd.harmonic.allSatisfy { $0.isFinite })
    }

    /// The running medians against a direct implementation of the masks on a random
    /// spectrogram with many ties, for the default and for unusual filter lengths.
    /// (A time window of 9 frames takes the median-of-9 network, the others the sorted windows.)
    @Test(arguments: [
        (17, 17, 11_000.0, 4, Float(2)), (9, 17, 11_000.0, 4, Float(2)), (5, 9, 500.0, 3, Float(1)),
        (1, 2, 300.0, 1, Float(1.5)),
    ])
    func runningMediansMatchADirectSeparation(
        timeLength: Int, frequencyLength: Int, maxFrequency: Double,
        framesPerVector: Int, beta: Float
    ) {
        var settings = HarmonicPercussiveConfiguration()
        settings.harmonicMedianLength = timeLength
        settings.percussiveMedianLength = frequencyLength
        settings.maxFrequency = maxFrequency
        settings.framesPerVector = framesPerVector
        settings.separationFactor = beta
        settings.framesPooled = 1  // the direct reference separates every frame and bin
        settings.relativeBandwidth = 0
        let config = FeatureSynth.configuration
        var g = FeatureSynth.Noise(state: 11)
        let frameCount = 37
        // Quantised magnitudes (many equal values), with a steady partial and a broadband hit.
        var x = [[Float]](repeating: [], count: frameCount)
        for t in 0..<frameCount {
            x[t] = (0..<config.binCount).map { k in
                var v = ((g.next() + 1) * 2).rounded()
                if k == 20 || k == 21 { v += 40 }
                if t == 12 { v += 30 }
                return v
            }
        }
        let acc = HarmonicPercussiveAccumulator(configuration: config, settings: settings)
        for t in 0..<frameCount { acc.consume(SpectralFrame(index: t, magnitude: x[t])) }
        let f = acc.finish()

        let th = timeLength / 2, fh = frequencyLength / 2
        let maxBin = Int((maxFrequency / config.binWidth).rounded(.down))
        let stored = min(config.binCount, maxBin + fh + 1)
        func median(_ v: [Float]) -> Float { v.sorted()[v.count / 2] }
        let bands = f.bandCount
        var expected = [[Double]](repeating: [Double](repeating: 0, count: 3 * bands), count: f.count)
        for c in 0..<frameCount {
            for k in 0...maxBin {
                let h = median((max(0, c - th)...min(frameCount - 1, c + th)).map { x[$0][k] })
                let p = median((max(0, k - fh)...min(stored - 1, k + fh)).map { x[c][$0] })
                let component = h > beta * p ? 0 : (p > beta * h ? 1 : 2)
                let freq = Double(k) * config.binWidth
                let band = (0..<bands).last { f.bandEdges[$0] <= freq } ?? 0
                expected[c / framesPerVector][component * bands + band] += Double(x[c][k] * x[c][k])
            }
        }
        #expect(f.count == (frameCount + framesPerVector - 1) / framesPerVector)
        let scale = Double(16) / Double(config.frameSize * config.frameSize)
        var checked = 0
        for v in 0..<f.count {
            let frames = Double(min(framesPerVector, frameCount - v * framesPerVector))
            for (component, values) in [f.harmonic, f.percussive, f.residual].enumerated() {
                for b in 0..<bands {
                    let want = expected[v][component * bands + b] * scale / frames
                    let got = Double(values[v * bands + b])
                    #expect(abs(got - want) <= 1e-5 * max(want, 1e-9), "vector \(v) component \(component) band \(b)")
                    if want > 0 { checked += 1 }
                }
            }
        }
        #expect(checked > f.count)
    }

    // MARK: - Beat aggregation

    /// 40 frames at 10 frames/s of (i, i²): the span is 0 ... 4 s.
    private static let ramp = FrameFeature(
        values: (0..<40).flatMap { [Float($0), Float($0 * $0)] },
        dimension: 2, frameRate: 10)

    private static func expected(_ frames: ClosedRange<Int>, _ reduce: ([Float]) -> Float) -> [Float] {
        [reduce(frames.map { Float($0) }), reduce(frames.map { Float($0 * $0) })]
    }

    @Test func segmentMeansMaximaAndMediansOfARamp() {
        let mean: ([Float]) -> Float = { $0.reduce(0, +) / Float($0.count) }
        let median: ([Float]) -> Float = { v in
            let s = v.sorted(), n = s.count
            return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
        }
        let bounds = [0, 1, 2.5, 4]
        let segments = [0...9, 10...24, 25...39]
        let m = Self.ramp.aggregated(between: bounds)
        #expect(m.boundaries == bounds)
        #expect(m.count == 3 && m.dimension == 2)
        for (i, frames) in segments.enumerated() {
            #expect(Array(m.vector(i)) == Self.expected(frames, mean))
        }
        #expect(Array(m.vector(0)) == [4.5, 28.5])
        let x = Self.ramp.aggregated(between: bounds, using: .maximum)
        for (i, frames) in segments.enumerated() {
            #expect(Array(x.vector(i)) == Self.expected(frames, { $0.max() ?? -1 }))
        }
        let d = Self.ramp.aggregated(between: bounds, using: .median)
        for (i, frames) in segments.enumerated() {
            #expect(Array(d.vector(i)) == Self.expected(frames, median))
        }
        #expect(Array(d.vector(0)) == [4.5, 20.5])
        #expect(Array(d.vector(1)) == [17, 289])

        // A segment shorter than a frame takes the frame holding its midpoint.
        let short = Self.ramp.aggregated(between: [0.31, 0.32])
        #expect(Array(short.vector(0)) == [3, 9])
        // Frame centres decide: frame 10 is centred at 1.05 s.
        let centred = Self.ramp.aggregated(between: [1.04, 1.06, 1.16])
        #expect(Array(centred.values) == [10, 100, 11, 121])
        // The STFT convention: frame i centred at i / rate.
        let stft = FrameFeature(values: (0..<40).map { Float($0) }, dimension: 1, frameRate: 10, startTime: -0.05)
        #expect(Array(stft.aggregated(between: [1, 2]).values) == [14.5])
    }

    @Test func hostileBoundariesAreSanitised() {
        let m = Self.ramp.aggregated(between: [.nan, -5, 1e300, 3, 1, .infinity, -.infinity, 1, 3, -0.0])
        #expect(m.boundaries == [0, 1, 3, 4])
        #expect(Array(m.values) == [4.5, 28.5, 19.5, 413.5, 34.5, 1198.5])
        // Everything beyond the end collapses to one boundary: no segment.
        #expect(Self.ramp.aggregated(between: [10, 20]).count == 0)
        #expect(Self.ramp.aggregated(between: []).count == 0)
        #expect(Self.ramp.aggregated(between: [1]).count == 0)
        #expect(Self.ramp.aggregated(between: [.nan, .nan]).boundaries.isEmpty)
        // Degenerate features.
        #expect(FrameFeature(values: [], dimension: 3, frameRate: 10).aggregated(between: [0, 1]).count == 0)
        #expect(FrameFeature(values: [1, 2], dimension: 0, frameRate: 10).aggregated(between: [0, 1]).count == 0)
        #expect(FrameFeature(values: [1, 2], dimension: 1, frameRate: 0).aggregated(between: [0, 1]).count == 0)
        #expect(FrameFeature(values: [1, 2], dimension: 1, frameRate: .nan).aggregated(between: [0, 1]).count == 0)
        #expect(
            FrameFeature(values: [1, 2], dimension: 1, frameRate: 10, startTime: .infinity)
                .aggregated(between: [0, 1]).count == 0)
        // A trailing partial frame is ignored.
        let partial = FrameFeature(values: [1, 2, 3], dimension: 2, frameRate: 1)
        #expect(Array(partial.aggregated(between: [0, 5]).values) == [1, 2])
        // Random boundaries, including extreme magnitudes, never trap and always give
        // count + 1 boundaries inside the span.
        var g = FeatureSynth.Noise(state: 3)
        let specials: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, .leastNonzeroMagnitude, 0, 4, 3.999999]
        for _ in 0..<300 {
            let n = Int((g.next() + 1) * 6)
            let b: [Double] = (0..<n).map { _ in
                let u = g.next()
                return u > 0.6 ? specials[Int((u - 0.6) / 0.4 * 8.99)] : Double(u) * 6
            }
            for reduction in [SegmentReduction.mean, .maximum, .median] {
                let r = Self.ramp.aggregated(between: b, using: reduction)
                #expect(r.count == max(0, r.boundaries.count - 1))
                #expect(r.boundaries.allSatisfy { $0 >= 0 && $0 <= 4 })
                #expect(r.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1521 })
            }
        }
    }

    @Test func beatSynchronousMfccs() {
        let (features, _) = FeatureSynth.mel(
            FeatureSynth.mix(
                FeatureSynth.tones([(220, 0.3)], seconds: 2),
                [Float](repeating: 0, count: 22_050) + FeatureSynth.noise(seconds: 1, amplitude: 0.3)))
        // Beats at 0.5 s: the first two beats are tone only, the last two tone + noise.
        let beats = [0.0, 0.5, 1.0, 1.5, 2.0]
        let s = features.mfccFeature.aggregated(between: beats)
        #expect(s.count == 4 && s.dimension == 13)
        #expect(s.boundaries == beats)
        let direct = features.bandFeature.aggregated(between: beats)
        // Noise raises the level (c0) in the second half.
        let c0: [Float] = (0..<4).map { s.values[$0 * 13] }
        #expect(c0[2] > c0[1] + 5, "c0 per beat \(c0)")
        // Segment means of the MFCCs are the DCT of the segment means of the bands: c0 check.
        let scale = Float(40).squareRoot()
        for i in 0..<4 {
            let meanBand: Float = direct.vector(i).reduce(0, +) / 40
            #expect(abs(c0[i] - scale * meanBand) < 1e-3)
        }
    }
}

/// The reduced spectrogram of the separation (frames pooled in time, constant-Q groups in
/// frequency): same vector grid, the same energy per band, the same decisions on clear cases.
@Suite struct SeparationPoolingTests {
    private static var full: HarmonicPercussiveConfiguration {
        var s = HarmonicPercussiveConfiguration()
        s.framesPooled = 1
        s.relativeBandwidth = 0
        return s
    }

    @Test func poolingKeepsTheGridTheEnergyAndTheComponents() {
        let chord = FeatureSynth.tones([(220, 0.2), (277.2, 0.2), (329.6, 0.2)], seconds: 3)
        let clicks = FeatureSynth.clicks(seconds: 3, period: 0.25, first: 0.1)
        let noise = FeatureSynth.noise(seconds: 3, amplitude: 0.3)
        for signal in [chord, clicks, noise] {
            let every = FeatureSynth.hpss(signal, Self.full), reduced = FeatureSynth.hpss(signal)
            #expect(reduced.count == every.count && reduced.frameRate == every.frameRate)
            #expect(reduced.bandEdges == every.bandEdges)
            // Each group's power is the sum of its bins' (groups never straddle a band edge), so
            // every band of every vector holds the same total energy.
            let bands = every.bandCount
            for v in 0..<every.count {
                for b in 0..<bands {
                    let i = v * bands + b
                    let e1 = every.harmonic[i] + every.percussive[i] + every.residual[i]
                    let e2 = reduced.harmonic[i] + reduced.percussive[i] + reduced.residual[i]
                    #expect(abs(e1 - e2) <= 1e-4 * max(e1, 1e-9), "vector \(v) band \(b): \(e1) vs \(e2)")
                }
            }
        }
        for (signal, harmonicDominant) in [(chord, true), (clicks, false)] {
            let every = FeatureSynth.hpss(signal, Self.full), reduced = FeatureSynth.hpss(signal)
            let h1 = every.harmonic.reduce(0, +), p1 = every.percussive.reduce(0, +)
            let h2 = reduced.harmonic.reduce(0, +), p2 = reduced.percussive.reduce(0, +)
            // The dominant component stays dominant, by a wide margin.
            #expect((h1 > 10 * p1) == harmonicDominant && (h2 > 10 * p2) == harmonicDominant, "\(h1) \(p1) \(h2) \(p2)")
            #expect((p1 > 3 * h1) == !harmonicDominant && (p2 > 3 * h2) == !harmonicDominant, "\(h1) \(p1) \(h2) \(p2)")
        }
        // A pooling that does not divide the vectors falls back to every frame.
        var odd = HarmonicPercussiveConfiguration()
        odd.framesPerVector = 3
        var oddFull = Self.full
        oddFull.framesPerVector = 3
        #expect(FeatureSynth.hpss(chord, odd).count == FeatureSynth.hpss(chord, oddFull).count)
    }

    @Test func groupsAreConstantQAboveTheCornerAndPlainBinsBelow() {
        let config = FeatureSynth.configuration
        let reduced = HarmonicPercussiveAccumulator(configuration: config)
        let every = HarmonicPercussiveAccumulator(configuration: config, settings: Self.full)
        // 1 021 bins up to 11 kHz; about 50 plain bins below ~540 Hz and ~35 groups per octave
        // above it (ln(11000 / 540) / 0.02 ≈ 150).
        #expect(every.groupCount == Int((11_000 / config.binWidth).rounded(.down)) + 1)
        #expect(reduced.groupCount > 170 && reduced.groupCount < 240, "\(reduced.groupCount) groups")
    }
}
