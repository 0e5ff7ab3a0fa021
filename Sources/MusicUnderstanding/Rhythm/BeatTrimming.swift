import Foundation

/// The beat-tracking step of the rhythm chain and the trimming of its beats to the music: the
/// ``BeatTracker`` decodes beats around a period (Krebs, Böck & Widmer 2015; madmom's DBN beat
/// tracker), and the beats in the silent or onset-less head and tail, and inside silent
/// stretches, are dropped; the beats are reported only when they carry new sound.
extension RhythmAnalyzer {
    /// Beat frames as the tracker decoded them, with the radius of their beat-state window.
    struct TrackedBeats: Sendable {
        /// Beat frames at the onset frame rate.
        var frames: [Int]
        /// Radius of the beat-state window, frames: how far from its onset peak the decoder may
        /// have put a beat (±τ/λ positions, at least ``Configuration/PlacementSettings/refinementRadius``).
        var radius: Int
    }

    /// Beats tracked on `activation` around `period` (between `period / tempoRange` and
    /// `period * tempoRange` frames), trimmed to the music's activity on `curve`
    /// (``trimToActivity(_:curve:radius:)``) and without silent beats
    /// (``removeSilentBeats(_:energy:radius:threshold:)`` at `silence`), with the radius of their
    /// beat-state window.
    func trackBeats(around period: Double, activation: [Float], curve: [Float], energy: [Float], silence: Float?) -> TrackedBeats {
        let tracker = BeatTracker(configuration: configuration)
        let minPeriod = Int((period / configuration.beats.tempoRange).rounded(.down))
        let maxPeriod = Int((period * configuration.beats.tempoRange).rounded(.up))
        var frames = tracker.track(activation, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: period)
        // The decoder may put a beat anywhere in the beat-state window (±τ/λ positions), so the
        // onset support of a beat is looked for in that window when trimming.
        let radius = max(configuration.placement.refinementRadius, Int((period / configuration.beats.observationLambda).rounded()))
        frames = trimToActivity(frames, curve: curve, radius: radius)
        frames = removeSilentBeats(frames, energy: energy, radius: radius, threshold: silence)
        return TrackedBeats(frames: frames, radius: radius)
    }

    /// Median over `beats` of the largest relative flux within `radius` frames of each beat (1
    /// when the features carry no relative flux, as hand-made test features may not).
    func newSound(at beats: [Int], onset: OnsetFeatures, radius: Int) -> Double {
        let rel = onset.relativeFlux
        guard rel.count == onset.count, !rel.isEmpty, !beats.isEmpty else { return 1 }
        return Double(Smoothing.median(beats.map { PeakPicking.windowMaximum(rel, around: $0, radius: radius) }) ?? 0)
    }

    /// Removes beats in the head and tail where the music has no onsets (silence, a lead-in,
    /// a reverberant or fading end): leading and trailing beats whose onset peak (within
    /// `radius` frames) is below `edgeOnsetRatio` times the median beat onset peak.
    func trimToActivity(_ beats: [Int], curve: [Float], radius: Int) -> [Int] {
        guard !beats.isEmpty, !curve.isEmpty else { return [] }
        let peaks: [Float] = beats.map { f in
            let p = PeakPicking.largest(curve, near: f, radius: max(1, radius))
            return p >= 0 && p < curve.count ? curve[p] : 0
        }
        let median = Smoothing.median(peaks) ?? 0
        guard median > 0 else { return [] }
        let threshold = Float(configuration.beats.edgeOnsetRatio) * median
        guard let first = peaks.firstIndex(where: { $0 >= threshold }),
            let last = peaks.lastIndex(where: { $0 >= threshold })
        else { return [] }
        return Array(beats[first...last])
    }

    /// Removes beats inside silent stretches (a pause between movements): beats where the
    /// frame energy within `radius` frames stays below `threshold`, ``silenceThreshold(_:)`` (`silenceRatio` times the 95th
    /// percentile of the energy; the energy is logarithmic, so 0.25 is about 60 dB down for
    /// music at a normal level); `nil` keeps every beat.
    func removeSilentBeats(_ beats: [Int], energy: [Float], radius: Int, threshold: Float?) -> [Int] {
        guard !beats.isEmpty, let threshold else { return beats }
        return beats.filter { sounds(at: $0, energy: energy, threshold: threshold, radius: radius) }
    }

    /// `silenceRatio` times the 95th percentile of the log frame energy; `nil` without energy,
    /// infinite when the input is digital silence throughout.
    func silenceThreshold(_ energy: [Float]) -> Float? {
        guard !energy.isEmpty else { return nil }
        let sorted = energy.sorted()
        let reference = sorted[(sorted.count - 1) * 95 / 100]
        return reference > 0 ? Float(configuration.beats.silenceRatio) * reference : .infinity
    }

    /// Whether a frame within `radius` of `frame` reaches `threshold` (the music sounds there).
    func sounds(at frame: Int, energy: [Float], threshold: Float, radius: Int) -> Bool {
        let lo = max(0, frame - radius), hi = min(energy.count - 1, frame + radius)
        guard lo <= hi else { return false }
        for i in lo...hi where energy[i] >= threshold { return true }
        return false
    }
}
