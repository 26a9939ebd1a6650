/*
 * devices.c: `graft devices [--json]`: the devices Graft finds on this machine (the CPU, then
 * the OpenCL devices), as a table or as JSON, through graft_device_list.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "common.h"
#include "json.h"

const char tool_devices_synopsis[] = "[--json]";
const char tool_devices_summary[] = "list the devices Graft can run ops on";
const char tool_devices_details[] =
    "Prints one line per device, the CPU first, then the OpenCL devices (type GPU for GPUs and\n"
    "accelerators, OPENCL for CPU OpenCL devices such as PoCL), in the order sessions number\n"
    "them:\n"
    "\n"
    "  DEVICE           TYPE    MODEL               MEMORY     COMPUTE UNITS\n"
    "  /device:CPU:0    CPU     AMD EPYC 7B13       15.6 GiB   2\n"
    "\n"
    "where DEVICE is what an op's device string names (the full name is\n"
    "/job:localhost/replica:0/task:0/device:TYPE:N). GRAFT_OPENCL=0 in the environment hides\n"
    "the OpenCL devices; GRAFT_OPENCL_DEVICES=0,2 keeps only those.\n"
    "\n"
    "Options:\n"
    "  --json      print one JSON object instead:\n"
    "              {\"devices\": [{\"name\", \"type\", \"model\", \"vendor\", \"driver\",\n"
    "                            \"memory_bytes\", \"compute_units\"}]}\n"
    "              with the full device names\n"
    "  -h, --help  show this help\n";

typedef struct device_row {
  const char *name, *type, *model, *vendor, *driver;
  int64_t memory_bytes, compute_units;
} device_row;

static int read_row(device_row *row, const graft_device_list *list, int64_t i) {
  if (graft_device_list_name(&row->name, list, i) != GRAFT_OK || graft_device_list_type(&row->type, list, i) != GRAFT_OK ||
      graft_device_list_model(&row->model, list, i) != GRAFT_OK ||
      graft_device_list_vendor(&row->vendor, list, i) != GRAFT_OK ||
      graft_device_list_driver(&row->driver, list, i) != GRAFT_OK ||
      graft_device_list_memory_bytes(&row->memory_bytes, list, i) != GRAFT_OK ||
      graft_device_list_compute_units(&row->compute_units, list, i) != GRAFT_OK) {
    tool_error_graft("cannot read device %" PRId64, i);
    return TOOL_EXIT_FAILURE;
  }
  return TOOL_EXIT_OK;
}

/* "/device:CPU:0" from "/job:localhost/replica:0/task:0/device:CPU:0". */
static const char *short_name(const char *name) {
  const char *d = strstr(name, "/device:");
  return d != NULL ? d : name;
}

/* "15.6 GiB", "512 MiB", "-" for unknown. */
static void format_memory(char *buf, size_t size, int64_t bytes) {
  if (bytes <= 0) {
    snprintf(buf, size, "-");
  } else if (bytes >= ((int64_t)1 << 30)) {
    snprintf(buf, size, "%.1f GiB", (double)bytes / (double)((int64_t)1 << 30));
  } else {
    snprintf(buf, size, "%" PRId64 " MiB", bytes >> 20);
  }
}

static int print_table(const graft_device_list *list) {
  int64_t n = graft_device_list_count(list);
  int name_w = (int)strlen("DEVICE"), type_w = (int)strlen("TYPE"), model_w = (int)strlen("MODEL"), mem_w = (int)strlen("MEMORY");
  for (int64_t i = 0; i < n; ++i) {
    device_row r;
    if (read_row(&r, list, i) != TOOL_EXIT_OK) return TOOL_EXIT_FAILURE;
    char mem[32];
    format_memory(mem, sizeof mem, r.memory_bytes);
    if ((int)strlen(short_name(r.name)) > name_w) name_w = (int)strlen(short_name(r.name));
    if ((int)strlen(r.type) > type_w) type_w = (int)strlen(r.type);
    if ((int)strlen(r.model) > model_w) model_w = (int)strlen(r.model);
    if ((int)strlen(mem) > mem_w) mem_w = (int)strlen(mem);
  }
  printf("%-*s  %-*s  %-*s  %-*s  %s\n", name_w, "DEVICE", type_w, "TYPE", model_w, "MODEL", mem_w, "MEMORY",
         "COMPUTE UNITS");
  for (int64_t i = 0; i < n; ++i) {
    device_row r;
    if (read_row(&r, list, i) != TOOL_EXIT_OK) return TOOL_EXIT_FAILURE;
    char mem[32], units[32];
    format_memory(mem, sizeof mem, r.memory_bytes);
    if (r.compute_units > 0) {
      snprintf(units, sizeof units, "%" PRId64, r.compute_units);
    } else {
      snprintf(units, sizeof units, "-");
    }
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", name_w, short_name(r.name), type_w, r.type, model_w,
           r.model[0] != '\0' ? r.model : "-", mem_w, mem, units);
  }
  return TOOL_EXIT_OK;
}

static int print_json(const graft_device_list *list) {
  int64_t n = graft_device_list_count(list);
  fputs("{\"devices\": [", stdout);
  for (int64_t i = 0; i < n; ++i) {
    device_row r;
    if (read_row(&r, list, i) != TOOL_EXIT_OK) return TOOL_EXIT_FAILURE;
    fputs(i > 0 ? ",\n  {\"name\": " : "\n  {\"name\": ", stdout);
    json_write_string(stdout, r.name);
    fputs(", \"type\": ", stdout);
    json_write_string(stdout, r.type);
    fputs(", \"model\": ", stdout);
    json_write_string(stdout, r.model);
    fputs(", \"vendor\": ", stdout);
    json_write_string(stdout, r.vendor);
    fputs(", \"driver\": ", stdout);
    json_write_string(stdout, r.driver);
    printf(", \"memory_bytes\": %" PRId64 ", \"compute_units\": %" PRId64 "}", r.memory_bytes, r.compute_units);
  }
  fputs("\n]}\n", stdout);
  return TOOL_EXIT_OK;
}

int tool_devices_main(int argc, char **argv) {
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (argv[i][0] == '-') {
      return tool_usage_error("devices", "unknown option '%s'", argv[i]);
    } else {
      return tool_usage_error("devices", "unexpected argument '%s'", argv[i]);
    }
  }
  graft_device_list *list = NULL;
  if (graft_device_list_new(&list) != GRAFT_OK) {
    tool_error_graft("cannot list the devices");
    return TOOL_EXIT_FAILURE;
  }
  int status = json ? print_json(list) : print_table(list);
  graft_device_list_free(list);
  return status;
}
