#pragma once
// Multi-device tuned libraries (docs/deploy.md, "Several devices in one library"): a library
// deployed from several devices' datasets holds each device's selector and, at its first call,
// picks the one of the device it runs on: the measured device of the same slug or name, else the
// nearest measured device by device features, else the first one. The choice is made once per
// library and backend, logged once on stderr, and listed by tuned_device_choices().
// KTUNE_DEVICE_CPU / KTUNE_DEVICE_CUDA ("<slug>" or "<slug>;<feature>=<value>;...") stand in for
// the detected device: tests (and users) pretend to be another device with them.
// Part of the tuned libraries' runtime (ktune_remember), which names no family.
#include <string>
#include <utility>
#include <vector>

namespace ktune {

struct TunedDeviceChoice {
  std::string library;   // the family, e.g. "gemm"
  std::string backend;   // "cpu" or "cuda"
  std::string detected;  // the device found (or given by KTUNE_DEVICE_<BACKEND>)
  std::string device;    // the measured device whose selector is served
  std::string reason;    // why: "same device", "nearest measured device by features ...", ...
  bool exact = false;    // the detected device is the measured one
};

// The choices the multi-device libraries of this process made so far (at their first calls).
std::vector<TunedDeviceChoice> tuned_device_choices();

namespace tuned_device {

// A device as a multi-device selector records it ("<slug>\t<name>\t<f>=<v>;...") or as the
// runtime detects it.
struct Device {
  std::string slug, name;
  std::vector<std::pair<std::string, double>> features;
};

// Parses a selector's record of a device; throws std::invalid_argument naming a bad field.
Device parse_record(const std::string& record);
// "<slug>" or "<slug>;<feature>=<value>;..." (the KTUNE_DEVICE_<BACKEND> override).
Device parse_override(const std::string& text);
// This host's CPU as `ktune bench` records it: model name, "<slug of the name>-<threads>c",
// threads, simd_floats, l1/l2/l3 bytes.
Device detect_cpu();

// Index into measured of the device to serve, and why (sets choice.device/reason/exact).
int choose(const Device& detected, const std::vector<Device>& measured, TunedDeviceChoice& choice);

}  // namespace tuned_device
}  // namespace ktune

// What a multi-device selector header calls once, at its library's first call (the header
// includes nothing, so this is declared there too): the index into records (count entries, as
// parse_record reads them) of the device to serve. cuda_name/cuda_features (sm_count,
// compute_capability, global_mem_bytes, l2_bytes) describe the current CUDA device for backend
// "cuda"; null on the CPU (the runtime reads the host's CPU) or when the query failed.
extern "C" int ktune_tuned_pick_device(const char* library, const char* backend,
                                       const char* const* records, int count, const char* cuda_name,
                                       const double* cuda_features);
