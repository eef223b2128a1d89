/* Unit tests for cluster/: the container command lines of the four runtimes
 * (built without any runtime installed), image names and checks, cleanup
 * commands, the weights' place in the HF cache. tests/e2e/container.sh runs
 * the Podman lines for real. */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/cluster.h"

/* argv joined with single blanks (arena). */
static const char *join(ib_arena *a, const char **v)
{
	ib_buf b = {0};
	for (size_t i = 0; v[i]; i++)
		ib_buf_printf(&b, "%s%s", i ? " " : "", v[i]);
	const char *s = ib_arena_strdup(a, b.data ? b.data : "");
	ib_buf_free(&b);
	return s;
}

static const char *const env[] = {"MODEL=org/m", "PORT=8888", "CUDA_VISIBLE_DEVICES=2,3"};
static const char *const cmd[] = {"bash", "/r/x.sh", NULL};
static const cl_mount mounts[] = {{"/bin/infbench", false}, {"/s/prompt-cache", true}};

static cl_launch base(int rt, int vendor, const char *devices)
{
	return (cl_launch){.runtime = rt,
	                   .image = "vllm/vllm-openai:v0.9",
	                   .name = "infbench-abc-recipe",
	                   .vendor = vendor,
	                   .devices = devices,
	                   .hf_cache = "/hf",
	                   .workdir = "/s/work/abc",
	                   .env = env,
	                   .nenv = 3,
	                   .mounts = mounts,
	                   .nmounts = 2,
	                   .cmd = cmd};
}

static const char *line(ib_arena *a, const cl_launch *l)
{
	const char **v;
	ib_error e = {0};
	cr_assert_eq(cl_launch_argv(a, l, &v, &e), 0, "%s", e.msg);
	return join(a, v);
}

Test(cluster, docker_nvidia_with_devices)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_DOCKER, CL_GPU_NVIDIA, "2,3");
	cr_assert_str_eq(line(a, &l),
	                 "docker run --rm --name infbench-abc-recipe --network host --shm-size 16g "
	                 "--gpus \"device=2,3\" --ulimit memlock=-1 --ulimit stack=67108864 "
	                 "-v /hf:/hf -v /bin/infbench:/bin/infbench:ro "
	                 "-v /s/prompt-cache:/s/prompt-cache -v /s/work/abc:/s/work/abc "
	                 "-w /s/work/abc -e MODEL=org/m -e PORT=8888 -e CUDA_VISIBLE_DEVICES=0,1 "
	                 "--entrypoint bash vllm/vllm-openai:v0.9 /r/x.sh");
	ib_arena_free(a);
}

Test(cluster, docker_nvidia_all_gpus_keeps_the_hosts_ids)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_DOCKER, CL_GPU_NVIDIA, "");
	l.shm_size = "32g";
	const char *s = line(a, &l);
	cr_assert(strstr(s, "--shm-size 32g --gpus all "), "%s", s);
	cr_assert(strstr(s, "-e CUDA_VISIBLE_DEVICES=2,3 "), "%s", s);
	ib_arena_free(a);
}

Test(cluster, podman_nvidia_uses_cdi_devices)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_PODMAN, CL_GPU_NVIDIA, "4,5,6");
	const char *s = line(a, &l);
	cr_assert(ib_str_has_prefix(s, "podman run --rm --name infbench-abc-recipe --network host "
	                               "--shm-size 16g --device nvidia.com/gpu=4 --device "
	                               "nvidia.com/gpu=5 --device nvidia.com/gpu=6 --ulimit"),
	          "%s", s);
	cr_assert(strstr(s, "-e CUDA_VISIBLE_DEVICES=0,1,2 "), "%s", s);
	cr_assert_null(strstr(s, "--gpus"), "%s", s);
	l.devices = NULL;
	s = line(a, &l);
	cr_assert(strstr(s, " --device nvidia.com/gpu=all --ulimit"), "%s", s);
	ib_arena_free(a);
}

Test(cluster, amd_devices_for_docker_and_podman)
{
	ib_arena *a = ib_arena_new();
	for (int rt = CL_RT_DOCKER; rt <= CL_RT_PODMAN; rt++) {
		cl_launch l = base(rt, CL_GPU_AMD, "0,1");
		const char *s = line(a, &l);
		cr_assert(strstr(s, " --device /dev/kfd --device /dev/dri --group-add video "
		                    "--security-opt seccomp=unconfined --ulimit memlock=-1"),
		          "%s", s);
		/* ROCR_VISIBLE_DEVICES selects among every device: nothing renumbered */
		cr_assert(strstr(s, "-e CUDA_VISIBLE_DEVICES=2,3 "), "%s", s);
		cr_assert_null(strstr(s, "nvidia"), "%s", s);
	}
	ib_arena_free(a);
}

Test(cluster, simulator_rows_get_no_devices)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_PODMAN, CL_GPU_NONE, "");
	l.hf_cache = NULL;
	const char *s = line(a, &l);
	cr_assert_null(strstr(s, "--device"), "%s", s);
	cr_assert_null(strstr(s, "--ulimit"), "%s", s);
	cr_assert_null(strstr(s, "/hf"), "%s", s);
	ib_arena_free(a);
}

Test(cluster, options_pass_through_before_the_image)
{
	ib_arena *a = ib_arena_new();
	const char *opts[] = {"--pids-limit", "0"};
	cl_launch l = base(CL_RT_PODMAN, CL_GPU_NONE, NULL);
	l.opts = opts;
	l.nopts = 2;
	const char *s = line(a, &l);
	cr_assert(strstr(s, " --pids-limit 0 --entrypoint bash vllm/vllm-openai:v0.9 /r/x.sh"),
	          "%s", s);
	ib_arena_free(a);
}

Test(cluster, enroot_start)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_ENROOT, CL_GPU_NVIDIA, "0,1");
	l.image_dir = "/sq";
	cr_assert_str_eq(line(a, &l),
	                 "enroot start --rw --mount /hf:/hf "
	                 "--mount /bin/infbench /bin/infbench none x-create=auto,bind,ro "
	                 "--mount /s/prompt-cache:/s/prompt-cache --mount /s/work/abc:/s/work/abc "
	                 "--env MODEL=org/m --env PORT=8888 --env CUDA_VISIBLE_DEVICES=2,3 "
	                 "--env NVIDIA_VISIBLE_DEVICES=0,1 /sq/vllm_vllm-openai_v0.9.sqsh "
	                 "sh -c cd \"$0\" && exec \"$@\" /s/work/abc bash /r/x.sh");
	l = base(CL_RT_ENROOT, CL_GPU_AMD, NULL);
	const char *s = line(a, &l);
	cr_assert(strstr(s, "--mount /dev/kfd:/dev/kfd --mount /dev/dri:/dev/dri"), "%s", s);
	cr_assert(strstr(s, " vllm_vllm-openai_v0.9 sh -c"), "%s", s); /* a created container */
	ib_arena_free(a);
}

Test(cluster, apptainer_exec)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_APPTAINER, CL_GPU_AMD, "0");
	l.image_dir = "/sif";
	cr_assert_str_eq(
	    line(a, &l),
	    "apptainer exec --rocm --bind /hf:/hf --bind /bin/infbench:/bin/infbench:ro "
	    "--bind /s/prompt-cache:/s/prompt-cache --bind /s/work/abc:/s/work/abc "
	    "--env MODEL=org/m --env PORT=8888 --env CUDA_VISIBLE_DEVICES=2,3 "
	    "--pwd /s/work/abc /sif/vllm_vllm-openai_v0.9.sif bash /r/x.sh");
	l = base(CL_RT_APPTAINER, CL_GPU_NVIDIA, NULL);
	cr_assert(ib_str_has_prefix(line(a, &l), "apptainer exec --nv --bind"));
	ib_arena_free(a);
}

Test(cluster, bad_launches_are_refused)
{
	ib_arena *a = ib_arena_new();
	const char **v;
	ib_error e = {0};
	cl_launch l = base(CL_RT_NONE, CL_GPU_NONE, NULL);
	cr_assert_eq(cl_launch_argv(a, &l, &v, &e), IB_EINVAL);
	l = base(CL_RT_DOCKER, CL_GPU_NONE, NULL);
	l.image = "";
	cr_assert_eq(cl_launch_argv(a, &l, &v, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "no image"), "%s", e.msg);
	l = base(CL_RT_DOCKER, CL_GPU_NONE, NULL);
	const char *bad[] = {"NOEQUALS"};
	l.env = bad;
	l.nenv = 1;
	cr_assert_eq(cl_launch_argv(a, &l, &v, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "NOEQUALS"), "%s", e.msg);
	ib_arena_free(a);
}

Test(cluster, runtimes_and_vendors)
{
	int rt = -1;
	ib_error e = {0};
	cr_assert_eq(cl_runtime_parse("podman", &rt, &e), 0);
	cr_assert_eq(rt, CL_RT_PODMAN);
	cr_assert_eq(cl_runtime_parse("lxc", &rt, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "docker, podman, enroot, apptainer"), "%s", e.msg);
	cr_assert_str_eq(cl_runtime_name(CL_RT_APPTAINER), "apptainer");
	cr_assert_eq(cl_vendor_of("mi355x-amds"), CL_GPU_AMD);
	cr_assert_eq(cl_vendor_of("cluster:mi300x"), CL_GPU_AMD);
	cr_assert_eq(cl_vendor_of("h200-cw"), CL_GPU_NVIDIA);
	cr_assert_eq(cl_vendor_of(""), CL_GPU_NONE);
}

Test(cluster, image_checks_and_hints)
{
	ib_arena *a = ib_arena_new();
	cl_launch l = base(CL_RT_PODMAN, CL_GPU_NONE, NULL);
	cr_assert_str_eq(join(a, cl_image_check_argv(a, &l)),
	                 "podman image exists vllm/vllm-openai:v0.9");
	cr_assert_str_eq(cl_image_fetch_hint(a, &l), "podman pull vllm/vllm-openai:v0.9");
	l.runtime = CL_RT_DOCKER;
	cr_assert_str_eq(join(a, cl_image_check_argv(a, &l)),
	                 "docker image inspect vllm/vllm-openai:v0.9");
	l.runtime = CL_RT_ENROOT;
	cr_assert_str_eq(join(a, cl_image_check_argv(a, &l)), "enroot list");
	l.image_dir = "/sq";
	cr_assert_null(cl_image_check_argv(a, &l)); /* a file */
	cr_assert_str_eq(cl_image_fetch_hint(a, &l),
	                 "enroot import -o /sq/vllm_vllm-openai_v0.9.sqsh "
	                 "docker://vllm/vllm-openai:v0.9");
	l.runtime = CL_RT_APPTAINER;
	cr_assert_null(cl_image_check_argv(a, &l));
	cr_assert_str_eq(cl_sanitise(a, "a/b:c@d#e"), "a_b_c_d_e");
	ib_arena_free(a);
}

Test(cluster, cleanup_and_names)
{
	ib_arena *a = ib_arena_new();
	const char *names[] = {"infbench-x-server", "infbench-x-client"};
	cr_assert_str_eq(join(a, cl_cleanup_argv(a, CL_RT_PODMAN, names, 2)),
	                 "podman rm -f --ignore --time 0 infbench-x-server infbench-x-client");
	cr_assert_str_eq(join(a, cl_cleanup_argv(a, CL_RT_DOCKER, names, 1)),
	                 "docker rm -f infbench-x-server");
	cr_assert_null(cl_cleanup_argv(a, CL_RT_ENROOT, names, 2));
	cr_assert_null(cl_cleanup_argv(a, CL_RT_APPTAINER, names, 2));
	cr_assert_str_eq(cl_container_name(a, "0123456789abcdef", "client"),
	                 "infbench-0123456789abcdef-client");
	ib_arena_free(a);
}

Test(cluster, weights_in_the_hf_cache)
{
	char dir[] = "/tmp/ib_cluster_hf.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	ib_buf b = {0}, why = {0};
	cr_assert_eq(cl_hf_model_dir(&b, dir, "deepseek-ai/DeepSeek-R1"), 0);
	char want[256];
	snprintf(want, sizeof want, "%s/models--deepseek-ai--DeepSeek-R1", dir);
	cr_assert_str_eq(b.data, want);
	/* not there: the message names the path and how to stage it */
	cr_assert_not(cl_hf_model_staged(dir, "deepseek-ai/DeepSeek-R1", &why));
	cr_assert(strstr(why.data, "stage the weights first: "), "%s", why.data);
	cr_assert(strstr(why.data, want), "%s", why.data);
	cr_assert(strstr(why.data, "hf download deepseek-ai/DeepSeek-R1 --cache-dir"), "%s",
	          why.data);
	/* an empty snapshot folder is not staged; one with a file is */
	char p[512];
	snprintf(p, sizeof p, "%s/snapshots/abc", want);
	ib_error e = {0};
	cr_assert_eq(ib_mkdirs(p, 0755, &e), 0);
	why.len = 0;
	cr_assert_not(cl_hf_model_staged(dir, "deepseek-ai/DeepSeek-R1", &why));
	snprintf(p, sizeof p, "%s/snapshots/abc/config.json", want);
	cr_assert_eq(ib_write_file_atomic(p, "{}", 2, &e), 0);
	cr_assert(cl_hf_model_staged(dir, "deepseek-ai/DeepSeek-R1", &why));
	/* an absolute model path is its own folder */
	snprintf(p, sizeof p, "%s/snapshots", want);
	cr_assert(cl_hf_model_staged(dir, p, &why));
	why.len = 0;
	cr_assert_not(cl_hf_model_staged(dir, "/nonexistent/weights", &why));
	cr_assert(strstr(why.data, "/nonexistent/weights is missing or empty"), "%s", why.data);
	ib_buf_free(&b);
	ib_buf_free(&why);
	char cmdline[600];
	snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmdline), 0);
}
