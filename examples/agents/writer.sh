#!/bin/sh
# The example's writer: a deterministic stand-in for an AI agent (no service needed).
# Stagehand's exec: port gives it the prompt on standard input and takes its standard output
# as the final text. It counts its drafts in its resume token: the port hands the last token
# back in STAGEHAND_RESUME_TOKEN, and the last line it prints gives the next one.
prompt=$(cat)

drafts=${STAGEHAND_RESUME_TOKEN#writer-}
case $drafts in
  '' | *[!0-9]*) drafts=0 ;;
esac
next=$((drafts + 1))

# The task is the line after "…this task:".
task=$(printf '%s\n' "$prompt" | sed -n '/this task:$/{n;p;q;}')
notes=$(printf '%s\n' "$prompt" | sed -n 's/^Reviewer notes: //p' | head -n 1)

echo "Draft $next: $task"
echo
echo "A short text on the subject, written plainly and kept to one paragraph."
if [ -n "$notes" ]; then
  echo "Revised to address: $notes"
fi
echo "stagehand-resume-token: writer-$next"
