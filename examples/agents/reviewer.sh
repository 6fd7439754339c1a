#!/bin/sh
# The example's reviewer: deterministic, no AI service. It asks for changes on its first
# review and approves its second; with REVIEWER_STRICT=1 in its environment (set in the
# command, or passed on from the host with exec[REVIEWER_STRICT]:) it never approves. When
# the task mentions a title and the Boss has not been asked yet, it first asks the Boss to
# decide. It counts its reviews in its resume token.
prompt=$(cat)

reviews=${STAGEHAND_RESUME_TOKEN#reviewer-}
case $reviews in
  '' | *[!0-9]*) reviews=0 ;;
esac

case $prompt in
  *"Boss reply:"*) answered=yes ;;
  *) answered=no ;;
esac
if [ "$reviews" -eq 0 ] && [ "$answered" = no ] && printf '%s' "$prompt" | grep -qi 'title'; then
  echo "Before I review: the task mentions a title, and that is the Boss's call."
  echo "QUESTION: Should the title be formal or playful?"
  echo "stagehand-resume-token: reviewer-0"
  exit 0
fi

next=$((reviews + 1))
if [ "$next" -ge 2 ] && [ "${REVIEWER_STRICT:-0}" != 1 ]; then
  echo "Review $next: the draft now reads well."
  echo "VERDICT: approved"
else
  echo "Review $next: the draft needs work."
  echo "VERDICT: changes"
  echo "NOTES: open with a concrete example (review $next)"
fi
echo "stagehand-resume-token: reviewer-$next"
