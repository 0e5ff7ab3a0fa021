#ifndef CADENZA_CFFMPEG_SHIM_H
#define CADENZA_CFFMPEG_SHIM_H
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavdevice/version.h>
#include <dlfcn.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>

/* FFmpeg's error macros are function-like or FFERRTAG expressions, which Swift does not import. */

/** AVERROR(e) for a POSIX errno value. */
static inline int cadenza_averror(int e) { return AVERROR(e); }
/** AVERROR_EOF. */
static inline int cadenza_averror_eof(void) { return AVERROR_EOF; }
/** AVERROR_INVALIDDATA. */
static inline int cadenza_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/** AVERROR_STREAM_NOT_FOUND. */
static inline int cadenza_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
/** AVERROR_HTTP_NOT_FOUND (404). */
static inline int cadenza_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
/** AVERROR_HTTP_FORBIDDEN (403). */
static inline int cadenza_averror_http_forbidden(void) { return AVERROR_HTTP_FORBIDDEN; }
/** AVERROR_DECODER_NOT_FOUND. */
static inline int cadenza_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

/**
 * Loads libavdevice (the major version these headers belong to) and registers its input devices
 * (ALSA, PulseAudio, JACK, lavfi, ...) with libavformat. Returns 1 when they are registered, 0 when
 * the library or its entry point is missing. Call it once per process (Swift:
 * `FFmpeg.devicesRegistered`); the library stays loaded for the life of the process.
 *
 * libavdevice is loaded only here, not linked: it brings about 80 shared libraries of its own
 * (SDL, X11, PulseAudio, ...) that every process would otherwise load and relocate at start, for
 * the one command that reads a sound card.
 */
static inline int cadenza_register_devices(void) {
    const char *names[] = { "libavdevice.so." AV_STRINGIFY(LIBAVDEVICE_VERSION_MAJOR), "libavdevice.so" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!library)
            continue;
        void (*register_all)(void) = (void (*)(void))dlsym(library, "avdevice_register_all");
        if (register_all) {
            register_all();
            return 1;
        }
        dlclose(library);
    }
    return 0;
}

/**
 * Converts one decoded frame (any sample format, planar or packed) to packed float in `out`,
 * which has room for `out_count` sample frames. With `frame == NULL` drains the resampler.
 * Returns the number of sample frames written, or a negative AVERROR.
 */
static inline int cadenza_swr_convert_frame(SwrContext *s, float *out, int out_count, const AVFrame *frame) {
    uint8_t *o[1] = { (uint8_t *)out };
    if (!frame)
        return swr_convert(s, o, out_count, NULL, 0);
    return swr_convert(s, o, out_count, (const uint8_t **)frame->extended_data, frame->nb_samples);
}

/**
 * Converts `in_count` packed float sample frames from `in` (NULL drains) into `out`.
 * Returns the number of sample frames written, or a negative AVERROR.
 */
static inline int cadenza_swr_convert_packed(SwrContext *s, float *out, int out_count, const float *in, int in_count) {
    uint8_t *o[1] = { (uint8_t *)out };
    const uint8_t *i[1] = { (const uint8_t *)in };
    return swr_convert(s, o, out_count, in ? i : NULL, in ? in_count : 0);
}

/**
 * Copies `src` into `dst` (which must be uninitialised or zeroed), replacing an unspecified
 * order by FFmpeg's default layout for the channel count. Returns 0 or a negative AVERROR.
 */
static inline int cadenza_layout_normalized(AVChannelLayout *dst, const AVChannelLayout *src) {
    if (src->order == AV_CHANNEL_ORDER_UNSPEC) {
        av_channel_layout_default(dst, src->nb_channels);
        return 0;
    }
    return av_channel_layout_copy(dst, src);
}
#endif
