"""Representative configs for the renderer tests (our own, not corpus copies)."""

from __future__ import annotations

RECIPE = """\
recipe:
  _target_: nemo_automodel.recipes.llm.train_ft.TrainFinetuneRecipeForNextTokenPrediction
step_scheduler:
  ckpt_every_steps: 100
checkpoint:
  checkpoint_dir: /ckpt/run1
  restore_from: null
model:
  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B
"""

SLURM = {
    "slurm_single_node": """\
slurm:
  job_name: llm_finetune
  nodes: 1
  ntasks_per_node: 8
  time: "00:30:00"
  partition: batch
""",
    "slurm_multi_node_container": """\
slurm:
  job_name: llm_finetune
  nodes: 4
  ntasks_per_node: 8
  gpus_per_node: 8
  time: "2-00:00:00"
  account: my_account
  partition: batch
  container_image: nvcr.io/nvidia/nemo:dev
  hf_home: /lustre/hf_cache
  nemo_mount: /lustre/src/Automodel:/opt/Automodel
  extra_mounts:
    - source: /lustre/data
      dest: /data
    - /scratch:/scratch:ro
  master_port: 29600
""",
    "slurm_bare_metal_env_secrets": """\
slurm:
  job_name: bare
  nodes: 2
  ntasks_per_node: 2
  time: "10"
  container_image: null
  master_port: auto
  hf_token: ${HF_TOKEN}
  wandb_key: ${MY_WANDB}
  env_vars:
    OMP_NUM_THREADS: 1
    RUN_NAME: run-${SLURM_JOB_ID}
    DATA_ROOT: ${DATA_ROOT,/datasets/default}
    GREETING: "it's a \\"test\\" $(not run) `nor this`"
""",
    "slurm_nsys_fault_tolerance": """\
slurm:
  job_name: llm_profile
  nodes: 1
  ntasks_per_node: 8
  time: "01:00:00"
  account: my_account
  partition: batch
  container_image: nvcr.io/nvidia/nemo:dev
  nsys_enabled: true
fault_tolerance:
  max_restarts: 2
""",
    "slurm_requeue_fault_tolerance": """\
slurm:
  job_name: llm_requeue
  nodes: 2
  ntasks_per_node: 8
  gpus_per_node: 8
  time: "04:00:00"
  partition: batch
  signal: USR1@900
  requeue: true
  max_requeues: 5
fault_tolerance:
  max_restarts: 1
""",
    "slurm_sbatch_options": """\
slurm:
  job_name: llm_finetune
  nodes: 2
  ntasks_per_node: 8
  time: "04:00:00"
  account: my_account
  partition: batch
  qos: high
  reservation: maint_window
  constraint: "[rack1|rack2]&a100"
  mem: 0
  cpus_per_task: 64
  mail_type: [end, FAIL]
  mail_user: jane@example.org
  dependency: afterok:123:456
  chdir: /lustre/work
  repo_root: /lustre/src/Automodel
  setup:
    - module load cuda/12.4
    - source "$HOME/venv/bin/activate"
  sbatch_args: [--comment=sweep1, --hint=nomultithread]
""",
    "slurm_notify_requeue": """\
slurm:
  job_name: llm_notify
  nodes: 2
  ntasks_per_node: 8
  gpus_per_node: 8
  time: "04:00:00"
  partition: batch
  signal: USR1@900
  requeue: true
  hf_token: ${HF_TOKEN}
  notify:
    webhook_env: SLACK_WEBHOOK_URL
    command: [/usr/bin/logger, -t, automodel]
    timeout_seconds: 15
    time_limit_near_minutes: 30
""",
    "slurm_command_bare_metal": """\
slurm:
  job_name: custom
  nodes: 2
  ntasks_per_node: 4
  gpus_per_node: 0
  exclusive: true
  time: "30"
  container_image: null
  repo_root: ~/src/Automodel
  setup: |
    set -x
    export DATA="$HOME/data"
  command: |
    echo "node $SLURM_NODEID of $WORLD_SIZE ranks, master $MASTER_ADDR:$MASTER_PORT"
    python -c 'import sys; print(sys.path[1])' > "$JOB_DIR/path_$SLURM_NODEID.txt"
""",
}

SKYPILOT = {
    "skypilot_spot_multi_node": """\
skypilot:
  cloud: aws
  accelerators: "H100:8"
  num_nodes: 2
  use_spot: true
  disk_size: 200
  region: us-east-1
  setup: "pip install nemo-automodel"
  hf_token: ${HF_TOKEN}
  env_vars:
    HF_HOME: /data/hf
    RUN_TAG: ${RUN_TAG}
  file_mounts:
    /ckpt:
      source: s3://my-bucket/ckpt
      mode: MOUNT
    /data: s3://my-datasets/squad
""",
    "skypilot_image_kept_cluster": """\
skypilot:
  cloud: gcp
  accelerators: A100:8
  image_id: docker:nvcr.io/nvidia/nemo-automodel:26.04.00
  autostop: 60
  down: false
  file_mounts:
    /ckpt:
      name: ckpt-${RUN_TAG}
      store: gcs
      persistent: true
    ~/cache: gs://datasets-${UNSET_BUCKET}/cache
""",
    "skypilot_kubernetes_single": """\
skypilot:
  cloud: kubernetes
  accelerators: H100:1
  job_name: llama-k8s
""",
}

ENVIRON = {"HF_TOKEN": "hf_" + "DoNotLeakThisTokenValue0123456789", "RUN_TAG": "exp-42"}
"""The submitting environment the SkyPilot goldens are rendered with."""
