// starc OpenCL host runtime, the device: its errors, and the device, context, in-order queue
// and built program a generated OpenCL program runs on, with its kernel objects.
//
// Included by starc_opencl_host.hpp (which lists every host helper), generated next to the
// program with it:
//   starc_open_device(cl or kind, kernel_file, extensions, where)
//                              the first device of --device cpu|gpu|default that has the
//                              extensions and on which kernel_file (read from the program's
//                              own folder) builds; its context, in-order queue and program
//                              (and, from a command line, whether launches run runs of items)
//   starc_create_kernel(device, name, block, where)
//                              one kernel object (created once) and its work-group size
//   starc_block_size           the --block-size option
//   starc_cl_check / starc_opencl_fail
//                              a failed OpenCL call reported at <prog.sp>:<line>, status 3
#ifndef STARC_OPENCL_DEVICE_HPP
#define STARC_OPENCL_DEVICE_HPP

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120  // the kernels are OpenCL C 1.2; so is this host
#endif
#include <CL/cl.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "starc_runtime.hpp"

// --- errors ----------------------------------------------------------------------------------------

/// The name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), as the specification spells it.
inline const char* starc_cl_error_name(cl_int status) {
  switch (status) {
#define STARC_CL_ERROR(name) \
  case name:                 \
    return #name;
    STARC_CL_ERROR(CL_SUCCESS)
    STARC_CL_ERROR(CL_DEVICE_NOT_FOUND)
    STARC_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    STARC_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    STARC_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    STARC_CL_ERROR(CL_OUT_OF_RESOURCES)
    STARC_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    STARC_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    STARC_CL_ERROR(CL_MEM_COPY_OVERLAP)
    STARC_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    STARC_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    STARC_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    STARC_CL_ERROR(CL_MAP_FAILURE)
    STARC_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    STARC_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    STARC_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    STARC_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    STARC_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    STARC_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    STARC_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    STARC_CL_ERROR(CL_INVALID_VALUE)
    STARC_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    STARC_CL_ERROR(CL_INVALID_PLATFORM)
    STARC_CL_ERROR(CL_INVALID_DEVICE)
    STARC_CL_ERROR(CL_INVALID_CONTEXT)
    STARC_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    STARC_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    STARC_CL_ERROR(CL_INVALID_HOST_PTR)
    STARC_CL_ERROR(CL_INVALID_MEM_OBJECT)
    STARC_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    STARC_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    STARC_CL_ERROR(CL_INVALID_SAMPLER)
    STARC_CL_ERROR(CL_INVALID_BINARY)
    STARC_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    STARC_CL_ERROR(CL_INVALID_PROGRAM)
    STARC_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    STARC_CL_ERROR(CL_INVALID_KERNEL_NAME)
    STARC_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    STARC_CL_ERROR(CL_INVALID_KERNEL)
    STARC_CL_ERROR(CL_INVALID_ARG_INDEX)
    STARC_CL_ERROR(CL_INVALID_ARG_VALUE)
    STARC_CL_ERROR(CL_INVALID_ARG_SIZE)
    STARC_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    STARC_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    STARC_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    STARC_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    STARC_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    STARC_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    STARC_CL_ERROR(CL_INVALID_EVENT)
    STARC_CL_ERROR(CL_INVALID_OPERATION)
    STARC_CL_ERROR(CL_INVALID_GL_OBJECT)
    STARC_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    STARC_CL_ERROR(CL_INVALID_MIP_LEVEL)
    STARC_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    STARC_CL_ERROR(CL_INVALID_PROPERTY)
    STARC_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    STARC_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    STARC_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    STARC_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef STARC_CL_ERROR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";  // the ICD loader found no installed platform
    default:
      return "unknown OpenCL error";
  }
}

/// Reports a failed OpenCL operation at DSL location `where` ("prog.sp:12"), then `details`
/// (lines), and exits with status 3; `status` names the OpenCL error (CL_SUCCESS: none).
[[noreturn]] inline void starc_opencl_fail(const std::string& what, cl_int status, const char* where,
                                           const std::string& details = "") {
  std::fflush(stdout);
  if (status == CL_SUCCESS)
    std::fprintf(stderr, "error: %s at %s\n%s", what.c_str(), where, details.c_str());
  else
    std::fprintf(stderr, "error: %s (%s) at %s\n%s", what.c_str(), starc_cl_error_name(status), where,
                 details.c_str());
  std::exit(3);
}

/// Checks the status an OpenCL call returned.
inline void starc_cl_check(cl_int status, const char* what, const char* where) {
  if (status != CL_SUCCESS) starc_opencl_fail(what, status, where);
}

// --- the device ------------------------------------------------------------------------------------

/// An OpenCL object released when its owner goes (cl_context, cl_command_queue ...).
template <class Handle>
using starc_cl_handle = std::unique_ptr<std::remove_pointer_t<Handle>, cl_int (*)(Handle)>;

/// The chosen device with its context, in-order queue and built program.
struct starc_opencl {
  cl_device_id device = nullptr;
  starc_cl_handle<cl_context> context{nullptr, clReleaseContext};
  starc_cl_handle<cl_command_queue> queue{nullptr, clReleaseCommandQueue};
  starc_cl_handle<cl_program> program{nullptr, clReleaseProgram};
  std::string description;  // "PoCL: cpu-haswell-Intel(R) Xeon(R) ..."
  // Launch runs of items (see starc_launch): a CPU device and no --block-size given.
  bool runs = false;
  std::size_t units = 1;    // CL_DEVICE_MAX_COMPUTE_UNITS
};

/// A string property of a platform or device.
template <class Query, class Object, class Info>
inline std::string starc_cl_info(Query query, Object object, Info info) {
  std::size_t size = 0;
  if (query(object, info, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  if (query(object, info, size, &text[0], nullptr) != CL_SUCCESS) return "";
  text.resize(std::strlen(text.c_str()));  // drop the terminating NUL
  return text;
}

/// "PoCL: cpu-haswell-..." for messages and `starc backends`.
inline std::string starc_describe_device(cl_device_id device) {
  cl_platform_id platform = nullptr;
  clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
  std::string name = starc_cl_info(clGetPlatformInfo, platform, CL_PLATFORM_NAME);
  if (name.find("Portable Computing Language") != std::string::npos) name = "PoCL";
  return name + ": " + starc_cl_info(clGetDeviceInfo, device, CL_DEVICE_NAME);
}

/// `file` in the folder of the running executable (found through /proc/self/exe), so the
/// output folder (program + kernels) can be moved anywhere; `file` itself where that fails.
inline std::string starc_beside_program(const char* file) {
  std::vector<char> path(4096);
  ssize_t length = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (length <= 0) return file;
  std::string self(path.data(), static_cast<std::size_t>(length));
  return self.substr(0, self.find_last_of('/') + 1) + file;
}

/// The text of the kernel file, which must lie next to the program.
inline std::string starc_read_kernels(const std::string& path, const char* where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string reason = std::strerror(errno);
    starc_opencl_fail("cannot read the OpenCL kernels " + path + " (" + reason +
                          "); they must lie in the folder of the program",
                      CL_SUCCESS, where);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The devices of --device `kind` ("cpu", "gpu" or "default": GPUs first, then the rest).
inline std::vector<cl_device_id> starc_candidate_devices(const std::string& kind, const char* where) {
  if (kind != "cpu" && kind != "gpu" && kind != "default")
    throw starc::UsageError("--device expects cpu, gpu or default, got '" + kind + "'");
  cl_uint count = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status != CL_SUCCESS || count == 0)
    throw starc::DeviceError("no OpenCL platform is installed (install a driver, e.g. apt install pocl-opencl-icd)");
  std::vector<cl_platform_id> platforms(count);
  starc_cl_check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs", where);
  std::vector<cl_device_id> gpus, others;
  std::string found;
  for (cl_platform_id platform : platforms) {
    cl_uint n = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(n);
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id device : devices) {
      cl_device_type type = 0;
      clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      found += (found.empty() ? "" : ", ") + starc_describe_device(device);
      bool gpu = (type & CL_DEVICE_TYPE_GPU) != 0, cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
      if (kind == "gpu" ? gpu : kind == "cpu" ? cpu : true) (gpu ? gpus : others).push_back(device);
    }
  }
  gpus.insert(gpus.end(), others.begin(), others.end());
  if (gpus.empty())
    throw starc::DeviceError("no OpenCL " + std::string(kind == "default" ? "" : kind + " ") + "device found" +
                             (found.empty() ? std::string() : " (found: " + found + ")"));
  return gpus;
}

/// Tries to set up `device` for `source`: the extensions, a context, a queue and the built
/// program. Returns "" on success, else why not (with the build log when the build failed).
inline std::string starc_try_device(starc_opencl& out, cl_device_id device, const std::string& source,
                                    const std::vector<std::string>& extensions) {
  std::string available = " " + starc_cl_info(clGetDeviceInfo, device, CL_DEVICE_EXTENSIONS) + " ";
  std::string missing;
  for (const std::string& extension : extensions)
    if (available.find(" " + extension + " ") == std::string::npos)
      missing += (missing.empty() ? "" : ", ") + extension;
  if (!missing.empty()) return "lacks " + missing + ", which the kernels need";
  cl_int status = CL_SUCCESS;
  auto failed = [&status](const char* call) {
    return std::string(call) + " failed (" + starc_cl_error_name(status) + ")";
  };
  starc_opencl candidate;
  candidate.device = device;
  candidate.description = starc_describe_device(device);
  candidate.context.reset(clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status));
  if (status != CL_SUCCESS) return failed("clCreateContext");
  candidate.queue.reset(clCreateCommandQueue(candidate.context.get(), device, 0, &status));
  if (status != CL_SUCCESS) return failed("clCreateCommandQueue");
  const char* text = source.c_str();
  candidate.program.reset(clCreateProgramWithSource(candidate.context.get(), 1, &text, nullptr, &status));
  if (status != CL_SUCCESS) return failed("clCreateProgramWithSource");
  // OpenCL C lets a float '/' be 2.5 ulp off, and NVIDIA's is (measured on an H100: the
  // hoisted-terms and bc tests differed in the last bits); C, CUDA and the reference round it
  // correctly. The option is valid only where the device says it can.
  cl_device_fp_config single = 0;
  clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single, nullptr);
  const char* options =
      (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
  status = clBuildProgram(candidate.program.get(), 1, &device, options, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    auto build_info = [device](cl_program program, cl_program_build_info info, std::size_t size, void* value,
                               std::size_t* returned) {
      return clGetProgramBuildInfo(program, device, info, size, value, returned);
    };
    return "the kernels do not build (" + std::string(starc_cl_error_name(status)) + "); build log:\n" +
           starc_cl_info(build_info, candidate.program.get(), CL_PROGRAM_BUILD_LOG);
  }
  out = std::move(candidate);
  return "";
}

/// The first device of --device `kind` that has `extensions` and builds `kernel_file` (read
/// from the program's folder). Not just the first device: a PoCL whose LLVM does not know the
/// host CPU lists a device that cannot compile, and a second installed platform may work.
STARC_ENTRY starc_opencl starc_open_device(const std::string& kind, const char* kernel_file,
                                           const std::vector<std::string>& extensions, const char* where);
#if STARC_DEFINE_ENTRIES
STARC_ENTRY starc_opencl starc_open_device(const std::string& kind, const char* kernel_file,
                                           const std::vector<std::string>& extensions, const char* where) {
  std::vector<cl_device_id> candidates = starc_candidate_devices(kind, where);
  std::string path = starc_beside_program(kernel_file);
  std::string source = starc_read_kernels(path, where);
  std::string failures;
  for (cl_device_id device : candidates) {
    starc_opencl chosen;
    std::string failure = starc_try_device(chosen, device, source, extensions);
    if (failure.empty()) return chosen;
    failures += "  " + starc_describe_device(device) + ": " + failure + "\n";
  }
  starc_opencl_fail("no OpenCL device can run " + path, CL_SUCCESS, where, failures);
}
#endif

/// The program's device: the first of --device that builds `kernel_file`, as above. On a CPU
/// device, unless --block-size is given, launches run each work-item over a contiguous run of
/// items (starc_launch).
STARC_ENTRY starc_opencl starc_open_device(const starc::CommandLine& cl, const char* kernel_file,
                                           const std::vector<std::string>& extensions, const char* where);
#if STARC_DEFINE_ENTRIES
STARC_ENTRY starc_opencl starc_open_device(const starc::CommandLine& cl, const char* kernel_file,
                                           const std::vector<std::string>& extensions, const char* where) {
  starc_opencl device = starc_open_device(cl.get_extra("device", "default"), kernel_file, extensions, where);
  cl_device_type type = 0;
  cl_uint units = 1;
  clGetDeviceInfo(device.device, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  clGetDeviceInfo(device.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  device.units = std::max<cl_uint>(units, 1);
  device.runs = (type & CL_DEVICE_TYPE_CPU) != 0 && cl.get_extra("block-size", "").empty();
  return device;
}
#endif

/// A kernel object of the device's program and the work-group size of its launches:
/// --block-size, lowered to what the device allows for this kernel.
struct starc_kernel {
  starc_cl_handle<cl_kernel> handle{nullptr, clReleaseKernel};
  std::size_t group = 1;
};

inline starc_kernel starc_create_kernel(const starc_opencl& device, const char* name, std::size_t block,
                                        const char* where) {
  cl_int status = CL_SUCCESS;
  starc_kernel kernel;
  kernel.handle.reset(clCreateKernel(device.program.get(), name, &status));
  starc_cl_check(status, (std::string("clCreateKernel ") + name).c_str(), where);
  std::size_t limit = 0;
  starc_cl_check(clGetKernelWorkGroupInfo(kernel.handle.get(), device.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit,
                                          &limit, nullptr),
                 "clGetKernelWorkGroupInfo", where);
  kernel.group = std::max<std::size_t>(1, std::min(block, limit));
  return kernel;
}

/// --block-size N (work-items per work-group, 1..1024; default `fallback`).
inline std::size_t starc_block_size(const starc::CommandLine& cl, std::size_t fallback) {
  std::string text = cl.get_extra("block-size", std::to_string(fallback));
  long long value = 0;
  if (!starc::detail::parse_full_integer(text, value) || value < 1 || value > 1024)
    throw starc::UsageError("--block-size expects a work-group size from 1 to 1024, got '" + text + "'");
  return static_cast<std::size_t>(value);
}

#endif  // STARC_OPENCL_DEVICE_HPP
